// The queue of ill-conditioned cells that the table and list projections share: a cell whose
// 2x2 system is too ill-conditioned for the fast path's roundings is queued by its projection
// and placed afterwards by solveDeferredKernel, one thread each, the reference's way. Solved
// inline, one such cell held its whole warp (32 cells, or the list projection's one) for the
// reference's O(k^2 d) steps; at 10^8 cells that cost a drag frame three times its projection.

#include "cuda/cuda_error.h"
#include "cuda/embedsom_device.cuh"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda {
namespace {

// The queued cells placed as referenceWhereIllConditioned would have placed them inline: the
// same function of the same lists, so the positions are the same bit for bit.
__global__ void solveDeferredKernel(const ProjectionArgs a) {
    const unsigned long long queued = *a.deferredCount;
    const size_t count = queued < kDeferredCapacity ? size_t(queued) : kDeferredCapacity;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += size_t(gridDim.x) * blockDim.x) {
        const size_t p = a.deferred[i];
        const float2 r =
            detail::solveLikeReference(a.points + p * a.stride, a.landmarks, a.low, a.stride,
                                       a.topn, a.topnn, a.boost, a.adjust, a.knnDist + p * a.kOut,
                                       1, reinterpret_cast<const int*>(a.knnIdx + p * a.kOut));
        if (isfinite(r.x)) reinterpret_cast<float2*>(a.out)[p] = r;
    }
}

}  // namespace

void beginDeferredSolves(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.deferred)
        SEPAL_CUDA_CHECK(cudaMemsetAsync(a.deferredCount, 0, sizeof(unsigned long long), stream));
}

void finishDeferredSolves(const ProjectionArgs& a, cudaStream_t stream) {
    if (!a.deferred) return;
    // A few thousand cells at most in practice: one thread each, the rest exit at once.
    solveDeferredKernel<<<512, 128, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("solveDeferredKernel");
}

}  // namespace sepal::cuda
