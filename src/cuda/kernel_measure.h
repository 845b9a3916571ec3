#pragma once
// Timing the CUDA kernels that can take a shape, for auto's measured choice (auto_kernel.h).

#include <vector>

#include "core/embedsom/kernel_choice.h"
#include "core/embedsom/kernel_shape_class.h"
#include "cuda/kernel_registry.h"
#include "cuda/kernel_sample.h"

namespace sepal::cuda {

/// Times each candidate projecting `sample` (its points by its model, k neighbours) with adjust
/// on the current device: a warm-up (modules loaded, the model's copies made), then up to five
/// runs timed with CUDA events from the first launch to the last, of which the median counts. A
/// candidate whose first timed run takes over twice the best median so far is not run again
/// (the baselines take ten times as long as the tensor kernels). A candidate that ran as another
/// kernel (tensor+split without partitions runs as tensor+parts) is left out. Runs on the device
/// alone: the caller waits for its own work first. Throws CudaError or InputError when the
/// device fails.
std::vector<KernelTiming> timeKernels(const std::vector<const KernelEntry*>& candidates,
                                      const KernelSample& sample, int k, float adjust);

/// timeKernels on the class's synthetic sample (makeKernelSample, c.points points).
std::vector<KernelTiming> timeKernels(const std::vector<const KernelEntry*>& candidates,
                                      const KernelShapeClass& c, float adjust);

}  // namespace sepal::cuda
