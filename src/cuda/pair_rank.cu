#include "cuda/pair_rank.h"

#include "core/embedsom/pair_constants.h"

#include "cuda/cuda_error.h"
#include "cuda/embedsom_device.cuh"

namespace sepal::cuda {
namespace {

// The dense table stops where the CPU's does (g x g x 8 bytes: 128 MB at 4096 landmarks), and the
// list kernel indexes it in 32 bits (list_projection.cu's pairTermsOf).
static_assert(kMaxPairTableLandmarks * kMaxPairTableLandmarks <= 0xffffffffull);
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
    return g >= 2 && g <= kMaxPairTableLandmarks && pairTermsByRankOn();
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
