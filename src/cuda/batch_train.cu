// Batch training kernels: accumulate per-landmark sums of assigned points, and smooth them over
// the SOM grid.
//
// Decomposition: the assignment is the fused k-NN with k = 1 (or the bitonic one beyond its
// limits); accumulateKernel uses one thread per (point, dimension) with float atomics into the
// g x d sums (contention is spread over g landmarks); somSmoothKernel uses one thread per
// (landmark j, dimension t) looping over all g best-matching landmarks: O(g^2 d) work, no shared
// memory. Limits: g < 65536.

#include <cuda_runtime_api.h>

#include <cmath>

#include "core/common/error.h"
#include "cuda/batch_train.h"
#include "cuda/cuda_error.h"
#include "cuda/device_buffer.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/kernel_limits.h"

namespace sepal::cuda {

struct DevicePoints::State {
    size_t n = 0, d = 0;
    int stride = 0;
    DeviceBuffer<float> points;  // n x stride
};

DevicePoints::DevicePoints(const float* points, size_t n, size_t d)
    : m_state(std::make_unique<State>()) {
    if (d == 0) throw InputError("training points must have at least one dimension");
    State& s = *m_state;
    s.n = n;
    s.d = d;
    s.stride = paddedDim(d);
    s.points.reserve(std::max<size_t>(n * s.stride, 1));
    if (n == 0) return;
    DeviceBuffer<float> raw;
    raw.reserve(n * d);
    SEPAL_CUDA_CHECK(cudaMemcpy(raw.get(), points, n * d * sizeof(float), cudaMemcpyHostToDevice));
    launchPadRows(raw.get(), n, int(d), s.points.get(), s.stride, nullptr);
    SEPAL_CUDA_CHECK(cudaDeviceSynchronize());
}

DevicePoints::~DevicePoints() = default;
size_t DevicePoints::count() const {
    return m_state->n;
}
size_t DevicePoints::dim() const {
    return m_state->d;
}

namespace {

__global__ void accumulateKernel(const float* points, size_t n, int d, int stride,
                                 const uint32_t* assign, const float* dist, float* sums,
                                 float* counts, double* inertia) {
    const size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= n * size_t(d)) return;
    const size_t p = e / d;
    const int t = int(e % d);
    const uint32_t b = assign[p];
    atomicAdd(sums + size_t(b) * d + t, points[p * stride + t]);
    if (t == 0) {
        atomicAdd(counts + b, 1.0f);
        atomicAdd(inertia, double(dist[p]));
    }
}

__global__ void somSmoothKernel(const float* sums, const float* counts, const float* grid, int g,
                                int d, float inv2s2, float* numer, float* denom) {
    const size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= size_t(g) * d) return;
    const int j = int(e / d), t = int(e % d);
    const float gx = grid[2 * j], gy = grid[2 * j + 1];
    float num = 0, den = 0;
    for (int b = 0; b < g; ++b) {
        const float dx = grid[2 * b] - gx, dy = grid[2 * b + 1] - gy;
        const float h = expf(-(dx * dx + dy * dy) * inv2s2);
        num += h * sums[size_t(b) * d + t];
        den += h * counts[b];
    }
    numer[e] = num;
    if (t == 0) denom[j] = den;
}

struct Assigned {
    DeviceBuffer<float> landmarks, staging, sums, counts, dist;
    DeviceBuffer<uint32_t> assign;
    DeviceBuffer<double> inertia;
};

/// Nearest landmark of every point and the per-landmark sums, left on the device.
void assignAndSum(const DevicePoints::State& p, const float* landmarks, size_t g, Assigned& w) {
    if (g == 0) throw InputError("cannot assign points to zero landmarks");
    if (g >= 65536) throw InputError("the CUDA trainers support fewer than 65536 landmarks");
    w.landmarks.reserve(g * p.stride);
    w.staging.reserve(g * p.d);
    SEPAL_CUDA_CHECK(
        cudaMemcpy(w.staging.get(), landmarks, g * p.d * sizeof(float), cudaMemcpyHostToDevice));
    launchPadRows(w.staging.get(), g, int(p.d), w.landmarks.get(), p.stride, nullptr);
    w.sums.reserve(g * p.d);
    w.counts.reserve(g);
    w.inertia.reserve(1);
    w.assign.reserve(std::max<size_t>(p.n, 1));
    w.dist.reserve(std::max<size_t>(p.n, 1));
    SEPAL_CUDA_CHECK(cudaMemset(w.sums.get(), 0, g * p.d * sizeof(float)));
    SEPAL_CUDA_CHECK(cudaMemset(w.counts.get(), 0, g * sizeof(float)));
    SEPAL_CUDA_CHECK(cudaMemset(w.inertia.get(), 0, sizeof(double)));
    if (p.n == 0) return;
    ProjectionArgs a;
    a.points = p.points.get();
    a.n = p.n;
    a.stride = p.stride;
    a.dim = int(p.d);
    a.landmarks = w.landmarks.get();
    a.g = int(g);
    a.topn = a.topnn = 1;
    a.knnIdx = w.assign.get();
    a.knnDist = w.dist.get();
    a.kOut = 1;
    if (fusedRefusal(shapeOf(a)).empty())
        launchFused(a, nullptr);
    else
        launchBitonicKnn(a, nullptr);
    const size_t total = p.n * p.d;
    accumulateKernel<<<unsigned((total + 255) / 256), 256>>>(
        p.points.get(), p.n, int(p.d), p.stride, w.assign.get(), w.dist.get(), w.sums.get(),
        w.counts.get(), w.inertia.get());
    SEPAL_CUDA_CHECK_LAUNCH("accumulateKernel");
}

}  // namespace

KmeansSums kmeansAssignAccumulate(const DevicePoints& points, const float* landmarks, size_t g) {
    const DevicePoints::State& p = points.state();
    Assigned w;
    assignAndSum(p, landmarks, g, w);
    KmeansSums r;
    r.sums.resize(g * p.d);
    r.counts.resize(g);
    r.assignment.resize(p.n);
    SEPAL_CUDA_CHECK(
        cudaMemcpy(r.sums.data(), w.sums.get(), g * p.d * sizeof(float), cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(r.counts.data(), w.counts.get(), g * sizeof(float), cudaMemcpyDeviceToHost));
    if (p.n > 0)
        SEPAL_CUDA_CHECK(cudaMemcpy(r.assignment.data(), w.assign.get(), p.n * sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(&r.inertia, w.inertia.get(), sizeof(double), cudaMemcpyDeviceToHost));
    return r;
}

SomSums batchSomStep(const DevicePoints& points, const float* landmarks, const float* grid,
                     size_t g, float sigma) {
    if (!(sigma > 0.0f)) throw InputError("the SOM neighbourhood radius sigma must be > 0");
    const DevicePoints::State& p = points.state();
    Assigned w;
    assignAndSum(p, landmarks, g, w);
    DeviceBuffer<float> gridDev, numer, denom;
    gridDev.reserve(g * 2);
    numer.reserve(g * p.d);
    denom.reserve(g);
    SEPAL_CUDA_CHECK(
        cudaMemcpy(gridDev.get(), grid, g * 2 * sizeof(float), cudaMemcpyHostToDevice));
    const size_t total = g * p.d;
    somSmoothKernel<<<unsigned((total + 255) / 256), 256>>>(
        w.sums.get(), w.counts.get(), gridDev.get(), int(g), int(p.d),
        1.0f / (2.0f * sigma * sigma), numer.get(), denom.get());
    SEPAL_CUDA_CHECK_LAUNCH("somSmoothKernel");
    SomSums r;
    r.numerators.resize(total);
    r.denominators.resize(g);
    SEPAL_CUDA_CHECK(cudaMemcpy(r.numerators.data(), numer.get(), total * sizeof(float),
                                cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(r.denominators.data(), denom.get(), g * sizeof(float), cudaMemcpyDeviceToHost));
    return r;
}

}  // namespace sepal::cuda
