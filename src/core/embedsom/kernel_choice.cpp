#include "core/embedsom/kernel_choice.h"

#include <cmath>

namespace sepal {

std::string fastestKernel(const std::vector<KernelTiming>& timings) {
    const KernelTiming* best = nullptr;
    for (const KernelTiming& t : timings)
        if (std::isfinite(t.ms) && t.ms > 0 && (!best || t.ms < best->ms)) best = &t;
    return best ? best->kernel : std::string();
}

std::string closeRunnerUp(const std::vector<KernelTiming>& timings, double factor) {
    const std::string fastest = fastestKernel(timings);
    const KernelTiming *best = nullptr, *second = nullptr;
    for (const KernelTiming& t : timings) {
        if (!std::isfinite(t.ms) || t.ms <= 0) continue;
        if (t.kernel == fastest && !best) {
            best = &t;
        } else if (!second || t.ms < second->ms) {
            second = &t;
        }
    }
    return best && second && second->ms <= factor * best->ms ? second->kernel : std::string();
}

}  // namespace sepal
