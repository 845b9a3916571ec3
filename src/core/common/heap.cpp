#include "core/common/heap.h"

#include <malloc.h>

namespace sepal {

void reuseFreedMemory() {
    // No mapping for large blocks (they would be unmapped again when freed), and the heap's top
    // given back only past 1 GB free: the next block finds its pages already there.
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace sepal
