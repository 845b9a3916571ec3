#include "core/embedsom/embedsom.h"

namespace sepal {

std::unique_ptr<Projector> makeCpuProjector() {
    return makeReferenceProjector();
}

}  // namespace sepal
