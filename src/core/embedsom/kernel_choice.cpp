#include "core/embedsom/kernel_choice.h"

#include <cmath>

namespace sepal {

std::string fastestKernel(const std::vector<KernelTiming>& timings) {
    const KernelTiming* best = nullptr;
    for (const KernelTiming& t : timings)
        if (std::isfinite(t.ms) && t.ms > 0 && (!best || t.ms < best->ms)) best = &t;
    return best ? best->kernel : std::string();
}

}  // namespace sepal
