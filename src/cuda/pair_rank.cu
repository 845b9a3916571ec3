#include "cuda/pair_rank.h"

#include "cuda/cuda_error.h"
#include "cuda/embedsom_device.cuh"

namespace sepal::cuda {
namespace {

constexpr size_t kMostLandmarks = 4096;  // g x g x 8 bytes: 128 MB
// The list kernel indexes the dense table in 32 bits (list_projection.cu's pairTermsOf).
static_assert(kMostLandmarks * kMostLandmarks <= 0xffffffffull);
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    pairTermsByRankKernel(const float2* __restrict__ triangular, const uint16_t* __restrict__ rank,
                          int g, float2* __restrict__ dense) {
    const size_t e = size_t(blockIdx.x) * kThreads + threadIdx.x;
    if (e >= size_t(g) * size_t(g)) return;
    const uint32_t u = uint32_t(e / size_t(g)), v = uint32_t(e % size_t(g));
    dense[size_t(rank[u]) * size_t(g) + rank[v]] = triangular[detail::pairIndex(u, v)];
}

}  // namespace

bool pairTermsByRankApply(size_t g) {
    return g >= 2 && g <= kMostLandmarks && pairTermsByRankOn();
}

void launchPairTermsByRank(const float2* triangular, const uint16_t* rank, int g, float2* dense,
                           cudaStream_t stream) {
    const size_t entries = size_t(g) * size_t(g);
    if (entries == 0) return;
    pairTermsByRankKernel<<<unsigned((entries + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        triangular, rank, g, dense);
    SEPAL_CUDA_CHECK_LAUNCH("pairTermsByRankKernel");
}

}  // namespace sepal::cuda
