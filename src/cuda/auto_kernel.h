#pragma once
// auto's choice of a CUDA kernel: of the kernels that can take a shape, the fastest on this GPU,
// measured once per GPU and shape class (kernel_shape_class.h says what a class is) and kept in
// memory and on disk (kernel_choice_cache.h). Where there is nothing to weigh (one kernel takes
// the shape, or too few points for a class) or the measurement fails, the registry's fixed rule
// chooses (kernel_registry.h).

#include "core/embedsom/kernel_choice.h"
#include "core/embedsom/kernel_choice_cache.h"
#include "cuda/kernel_registry.h"

namespace sepal::cuda {

/// auto's kernel for a shape, and how it was chosen.
struct AutoPick {
    const KernelEntry* kernel = nullptr;  ///< never null
    AutoChoice how;                       ///< "measured", "cached" or "rule", and the timings
};

/// auto's kernel for `shape` projected with `adjust` on the current device: the kept choice of
/// its class, else the fastest of the kernels that take it, timed now (timeKernels) and kept in
/// `cache`; else the fixed rule. A measurement waits for the process's work on the device first
/// and runs one at a time in the process (a second caller for the class waits and finds it
/// kept). A failed one warns on one line and leaves the class to the rule for the process.
/// Throws InputError when no kernel takes the shape.
AutoPick chooseAutoKernel(const KernelShape& shape, float adjust, KernelChoiceCache& cache);

/// The process's cache, at kernelCachePathFromEnvironment() when first used.
KernelChoiceCache& processKernelCache();

/// The current device's key in the cache (kernelDeviceKey); throws CudaError.
std::string currentDeviceKey();

}  // namespace sepal::cuda
