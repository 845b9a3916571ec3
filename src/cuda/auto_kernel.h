#pragma once
// auto's choice of a CUDA kernel: of the kernels that can take a shape, the fastest on this GPU,
// measured once per GPU and shape class (kernel_shape_class.h says what a class is) and kept in
// memory and on disk (kernel_choice_cache.h). Where there is nothing to weigh (one kernel takes
// the shape, or too few points for a class) or the measurement fails, the registry's fixed rule
// chooses (kernel_registry.h).
//
// A class is measured on synthetic clustered cells, but which of two close kernels wins also
// depends on where the landmarks lie among the cells (tensor+split against tensor+parts at d 64
// g 1024 k 32 with the list projection's pair terms by rank: 1 % one way on the benchmark's normal
// landmarks, 20 % and 21 % the other on clustered and crowded landmarks among the cells). So when
// the class's runner-up came within kCloseCall of its fastest, the two are timed again on the
// caller's own cells and model, once per process and class, and the faster runs; that choice
// stays in the process's memory (another process's cells may differ). It is made by the first
// projection of the class that holds the class's cells at once (a resident projection of them
// all; a streamed one's chunks are fewer) on the model it projects.

#include <cstddef>
#include <functional>

#include "core/embedsom/kernel_choice.h"
#include "core/embedsom/kernel_choice_cache.h"
#include "cuda/kernel_registry.h"
#include "cuda/kernel_sample.h"

namespace sepal::cuda {

/// auto's kernel for a shape, and how it was chosen.
struct AutoPick {
    const KernelEntry* kernel = nullptr;  ///< never null
    AutoChoice how;  ///< "measured", "cached", "own-cells" or "rule", and the timings
};

/// A runner-up within this factor of a class's fastest is timed again on the caller's cells: the
/// spread between kinds of landmarks measured above, with a margin.
constexpr double kCloseCall = 1.25;

/// The caller's cells for auto to time two close kernels on: how many it offers (none for a
/// chunk of a streamed or ranged projection, which takes the choice already made on its call's
/// cells), and `take`, which copies the first `points` of them with the model that projects
/// them. Without `take`, no choice made on cells is used. `take` runs with the device idle and
/// auto's lock held: it must not project.
struct OwnCells {
    size_t count = 0;                                 ///< cells offered
    std::function<KernelSample(size_t points)> take;  ///< the first `points` of them
};

/// auto's kernel for `shape` projected with `adjust` on the current device: the kept choice of
/// its class, else the fastest of the kernels that take it, timed now (timeKernels) and kept in
/// `cache`; else the fixed rule. A measurement waits for the process's work on the device first
/// and runs one at a time in the process (a second caller for the class waits and finds it
/// kept). A failed one warns on one line and leaves the class to the rule for the process.
/// With at least the class's cells in `ownCells`, a close call is then timed again on them (see
/// the top of this file); with fewer, or when that fails (a warning on one line), the class's
/// choice stands. Throws InputError when no kernel takes the shape.
AutoPick chooseAutoKernel(const KernelShape& shape, float adjust, KernelChoiceCache& cache,
                          const OwnCells& ownCells = {});

/// The process's cache, at kernelCachePathFromEnvironment() when first used.
KernelChoiceCache& processKernelCache();

/// The current device's key in the cache (kernelDeviceKey); throws CudaError.
std::string currentDeviceKey();

}  // namespace sepal::cuda
