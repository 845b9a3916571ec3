#pragma once
// auto's measured choice of a CUDA kernel for a shape class: the candidates' times and the
// fastest of them. Plain C++: tested without a GPU.

#include <cstddef>
#include <string>
#include <vector>

namespace sepal {

/// One candidate's time on a shape class's sample.
struct KernelTiming {
    std::string kernel;  ///< the kernel's name ("tensor+parts")
    double ms = 0;       ///< median milliseconds of its timed runs (a single run when it was
                         ///< dropped early as far slower than the best)
};

/// What auto measured for a shape class on one GPU.
struct KernelChoice {
    std::string kernel;                 ///< the fastest candidate
    size_t points = 0;                  ///< points of the sample it was measured on
    std::vector<KernelTiming> timings;  ///< every candidate that ran, in the registry's order
};

/// How auto chose a projection's kernel.
struct AutoChoice {
    /// "measured", "cached" (measured before), "own-cells" (the class's close candidates timed
    /// again on the caller's cells) or "rule" (its fixed rule)
    std::string source;
    std::string shapeClass;  ///< the class measured for (kernelShapeKey); "" for the rule
    std::vector<KernelTiming> timings;  ///< the candidates' times behind it; none for the rule
};

/// The second fastest of `timings` when its time is within `factor` of the fastest's (a call
/// that the data may turn), else "".
std::string closeRunnerUp(const std::vector<KernelTiming>& timings, double factor);

/// The fastest of `timings` (the first of equal times, so the registry's order breaks ties);
/// empty when none has a positive finite time.
std::string fastestKernel(const std::vector<KernelTiming>& timings);

}  // namespace sepal
