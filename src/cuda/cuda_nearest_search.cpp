// The trainers' nearest-landmark search on the GPU (the k-NN phase of the tensor or fused kernel).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <utility>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "cuda/cuda_error.h"
#include "cuda/device_buffer.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/kernel_limits.h"
#include "cuda/tensor_landmarks.h"

namespace sepal::cuda {
namespace {

class CudaNearestSearch : public NearestSearch {
  public:
    explicit CudaNearestSearch(std::string kernel) : m_kernel(std::move(kernel)) {}

    void search(const float* points, size_t n, const float* landmarks, size_t g, size_t d, size_t k,
                uint32_t* idx, float* sqdist) override {
        if (k == 0 || n == 0) return;
        if (d == 0) throw InputError("nearest-landmark search needs at least one dimension");
        if (k > g)
            throw InputError("cannot find " + std::to_string(k) + " nearest landmarks among " +
                             std::to_string(g));
        if (g >= 65536) throw InputError("the CUDA search supports fewer than 65536 landmarks");
        if (k > size_t(kBitonicMaxList))
            throw InputError("the CUDA search finds at most " + std::to_string(kBitonicMaxList) +
                             " neighbours");
        const int stride = paddedDim(d);
        m_raw.reserve(std::max(n, g) * d);
        m_points.reserve(n * stride);
        m_landmarks.reserve(g * stride);
        m_idx.reserve(n * k);
        m_dist.reserve(n * k);
        SEPAL_CUDA_CHECK(
            cudaMemcpy(m_raw.get(), points, n * d * sizeof(float), cudaMemcpyHostToDevice));
        launchPadRows(m_raw.get(), n, int(d), m_points.get(), stride, nullptr);
        SEPAL_CUDA_CHECK(cudaDeviceSynchronize());
        SEPAL_CUDA_CHECK(
            cudaMemcpy(m_raw.get(), landmarks, g * d * sizeof(float), cudaMemcpyHostToDevice));
        launchPadRows(m_raw.get(), g, int(d), m_landmarks.get(), stride, nullptr);
        ProjectionArgs a;
        a.points = m_points.get();
        a.n = n;
        a.stride = stride;
        a.dim = int(d);
        a.landmarks = m_landmarks.get();
        a.g = int(g);
        a.topn = a.topnn = int(k);
        a.knnIdx = m_idx.get();
        a.knnDist = m_dist.get();
        a.kOut = int(k);
        const KernelShape shape = shapeOf(a);
        if (m_kernel == "resident" && residentKnnRefusal(shape).empty()) {
            m_tensor.upload(landmarks, g, d, stride, kTensorPadding, nullptr, false);
            a.tensor = m_tensor.view();
            launchResidentKnn(a, nullptr);
        } else if (m_kernel == "parts" && partsKnnRefusal(shape).empty()) {
            m_tensor.upload(landmarks, g, d, stride, kTensorPadding, nullptr, false);
            a.tensor = m_tensor.view();
            launchPartsKnn(a, nullptr);
        } else if (m_kernel == "tensor" && tensorRefusal(shape).empty()) {
            m_tensor.upload(landmarks, g, d, stride, kTensorPadding, nullptr);
            a.tensor = m_tensor.view();
            launchTensor(a, nullptr);
        } else if (fusedRefusal(shape).empty()) {
            launchFused(a, nullptr);
        } else {
            launchBitonicKnn(a, nullptr);
        }
        SEPAL_CUDA_CHECK(
            cudaMemcpy(idx, m_idx.get(), n * k * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        SEPAL_CUDA_CHECK(
            cudaMemcpy(sqdist, m_dist.get(), n * k * sizeof(float), cudaMemcpyDeviceToHost));
    }

  private:
    DeviceBuffer<float> m_raw, m_points, m_landmarks, m_dist;
    DeviceBuffer<uint32_t> m_idx;
    TensorLandmarkBuffers m_tensor;
    std::string m_kernel;
};

}  // namespace

std::unique_ptr<NearestSearch> makeCudaNearestSearch(const std::string& kernel) {
    return std::make_unique<CudaNearestSearch>(kernel);
}

}  // namespace sepal::cuda
