#include "core/common/heap.h"

#include <malloc.h>

namespace sepal {

void reuseFreedMemory() {
    // No mapping for large blocks (they would be unmapped again when freed), and no trimming
    // of the heap's top: the next block finds its pages already there.
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace sepal
