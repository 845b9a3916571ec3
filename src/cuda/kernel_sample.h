#pragma once
// The synthetic data auto times the CUDA kernels on (kernel_measure.h): clustered points, as
// cytometry data are, and landmarks drawn from them, as a trained map's lie in the data.

#include <cstddef>
#include <vector>

#include "core/model/landmark_model.h"

namespace sepal::cuda {

/// Points and a model to time the kernels of one shape on.
struct KernelSample {
    std::vector<float> points;  ///< n x d, row-major
    LandmarkModel model;        ///< g landmarks of d dimensions
};

/// n x d points around 16 centres (unit spread around centres four times as far apart), and g
/// landmarks taken from them, slightly moved, whose 2D positions follow their first two
/// coordinates (so that the least-squares systems are as well conditioned as in real use). The
/// same arguments give the same sample on any number of threads.
KernelSample makeKernelSample(size_t n, size_t d, size_t g);

}  // namespace sepal::cuda
