#pragma once
// The tensor kernels' copy of the landmarks on the device: centred, TF32-rounded (and, in index
// order, FP16 and scaled), in mma.sync fragment order.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/device_buffer.h"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda {

/// Owns the device buffers behind a TensorLandmarks view and fills them from host landmarks.
class TensorLandmarkBuffers {
  public:
    /// Prepares landmarks (g x d, host, row-major) for a device stride and a tile width, in the
    /// fixed shuffled order (the tensor kernel) or in index order (the resident and parts
    /// k-NN, which also get the FP16 fragments); the copies are queued on `stream` from host
    /// memory this object keeps until the next upload.
    void upload(const float* high, size_t g, size_t d, int stride, int tileWidth,
                cudaStream_t stream, bool shuffled = true);
    /// The view for ProjectionArgs::tensor (valid until the next upload).
    TensorLandmarks view() const { return m_view; }

  private:
    std::vector<float> m_rows, m_norms, m_centre;
    std::vector<uint16_t> m_perm, m_halves;
    DeviceBuffer<float> m_rowsDev, m_normsDev, m_centreDev;
    DeviceBuffer<uint16_t> m_permDev, m_halvesDev;
    TensorLandmarks m_view;
};

}  // namespace sepal::cuda
