#pragma once
// What each CUDA kernel phase supports, as rules on a shape and a device that say why they
// refuse it. The kernel registry (kernel_registry.h), the GPU nearest search and the batch
// training ask these rules and nothing else.

#include <cstddef>
#include <string>

#include "cuda/embedsom_kernels.h"

namespace sepal::cuda {

/// What a kernel's limits depend on: the problem's shape and the device.
struct KernelShape {
    size_t n = 0;         ///< points
    size_t d = 0;         ///< dimensions that hold data
    int stride = 0;       ///< paddedDim(d)
    int g = 0;            ///< landmarks
    int topn = 0;         ///< k, the neighbours that place a point
    int topnn = 0;        ///< neighbours found per point (k + 1, or k when k = g)
    DeviceLimits device;  ///< compute capability and shared memory
};

/// The shape of a launch with these arguments on the current device.
KernelShape shapeOf(const ProjectionArgs& args);

/// Why the fused kernel cannot take the shape; empty when it can.
std::string fusedRefusal(const KernelShape& s);
/// Why the tensor kernel (TF32 k-NN and the fused projection) cannot take the shape.
std::string tensorRefusal(const KernelShape& s);
/// Why the resident k-NN (every landmark in shared memory) cannot take the shape.
std::string residentKnnRefusal(const KernelShape& s);
/// Why the parts k-NN (FP16, landmarks in parts through shared memory) cannot take the shape.
std::string partsKnnRefusal(const KernelShape& s);
/// Why the table projection (the pair table in shared memory) cannot take the shape.
std::string tableProjectionRefusal(const KernelShape& s);
/// Why the list projection (a warp per point) cannot take the shape.
std::string listProjectionRefusal(const KernelShape& s);
/// Why the bitonic k-NN and its projections cannot take the shape.
std::string bitonicRefusal(const KernelShape& s);
/// Why the nearest-landmark kernel (k = 1, split FP16 products, the training step's) cannot take
/// the shape.
std::string nearestRefusal(const KernelShape& s);

}  // namespace sepal::cuda
