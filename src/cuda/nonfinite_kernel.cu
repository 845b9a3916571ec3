// Placement of points with NaN or infinite coordinates (rare): the fast kernels queue them, and
// this kernel places them like the CPU backend: neighbours from the finite coordinates only
// (distances rounded like the CPU's, without fused multiply-add), then the score-weighted mean of
// the neighbours' 2D positions; the landmarks' centroid when no coordinate is finite.
//
// Decomposition: kFixThreads threads in a grid-stride loop over the queue, whose length is read
// on the device (so the launch is queued right after the projection without a host round trip);
// each thread keeps its sorted topnn list in its slice of a global scratch buffer (insertion
// sort, O(g * topnn) per point). No shared memory. Limits: topnn <= kBitonicMaxList.

#include <cfloat>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_device.cuh"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda {
namespace {

__global__ void placeNonFiniteKernel(const ProjectionArgs a) {
    const unsigned long long count = a.counters[0];
    const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float* dist = a.scratch + t * a.topnn;
    uint32_t* idx = a.scratchIdx + t * a.topnn;
    for (unsigned long long q = t; q < count; q += size_t(gridDim.x) * blockDim.x) {
        const size_t p = a.nonFinite[q];
        const float* x = a.points + p * a.stride;
        bool anyFinite = false;
        for (int c = 0; c < a.dim; ++c) anyFinite = anyFinite || isfinite(x[c]);
        float2 y;
        if (!anyFinite) {
            y = detail::neighbourMean([](int i) { return uint32_t(i); }, [](int) { return 0.0f; },
                                      false, a.g, a.low);
        } else {
            int m = 0;
            for (int j = 0; j < a.g; ++j) {
                const float* l = a.landmarks + size_t(j) * a.stride;
                float acc = 0;
                for (int c = 0; c < a.dim; ++c) {
                    if (!isfinite(x[c])) continue;
                    const float e = x[c] - l[c];
                    acc = __fadd_rn(acc, __fmul_rn(e, e));
                }
                if (m == a.topnn && !(acc < dist[m - 1])) continue;
                int i = m < a.topnn ? m++ : m - 1;
                while (i > 0 && acc < dist[i - 1]) {
                    dist[i] = dist[i - 1];
                    idx[i] = idx[i - 1];
                    --i;
                }
                dist[i] = acc;
                idx[i] = uint32_t(j);
            }
            // Scores overwrite the distances in place (each is read before it is written).
            const bool ok =
                detail::computeScores<0>([&](int i) { return dist[i]; }, a.topn, a.topnn, a.boost,
                                         [&](int i, float s) { dist[i] = s; });
            y = detail::neighbourMean([&](int i) { return idx[i]; }, [&](int i) { return dist[i]; },
                                      ok, a.topn, a.low);
        }
        reinterpret_cast<float2*>(a.out)[p] = y;
    }
}

}  // namespace

void launchPlaceNonFinite(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0 || !a.out) return;
    placeNonFiniteKernel<<<kFixThreads / 128, 128, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("placeNonFiniteKernel");
}

}  // namespace sepal::cuda
