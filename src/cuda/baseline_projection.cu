// The "aligned" and "registers" projection baselines, written from the published GPU EmbedSOM
// design's description, with the reference's sign of adjust ((1 + |h|^2)^-adjust).
//
// Decomposition: one warp per point, 8 points per block; the k-NN result comes from global
// memory (knnIdx/knnDist, topnn per point). Lane 0 computes the scores into shared memory
// (topn floats per warp). The pair loop computes D = <x - L_u, L_v - L_u> / |L_v - L_u|^2 in
// O(d) per pair from float4 loads (rows padded to a multiple of 4):
// - aligned: lane l takes pairs (i, j) with j = i + 1 + l, i + 33 + l, ...;
// - registers: lane l takes 2x2 blocks of pairs (i0, i0+1) x (j0, j0+1), so that each float4 of
//   x, L_u0, L_u1, L_v0 and L_v1 loaded into registers serves four pairs.
// Partial sums are reduced over the warp with shuffles and lane 0 solves.
// Shared memory: 8 * topn floats per block. Limits: topnn <= 1024 (the bitonic k-NN's).

#include "cuda/cuda_error.h"
#include "cuda/embedsom_device.cuh"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda {
namespace {

using detail::LeastSquares;
constexpr int kWarps = 8;

struct PointSetup {
    bool ok;      // scores fine and the point finite
    bool bad;     // non-finite input
    bool scored;  // the scores are usable as fallback weights
};

/// Lane 0 writes the scores to `scores`; all lanes learn whether the formula applies.
__device__ PointSetup setupPoint(const ProjectionArgs& a, size_t p, float* scores) {
    const int lane = threadIdx.x % 32;
    const float* x = a.points + p * a.stride;
    bool bad = false;
    for (int t = lane; t < a.stride; t += 32) detail::finiteOrZero(x[t], bad);
    bad = __any_sync(0xffffffffu, bad);
    bool ok = false;
    if (lane == 0) {
        const float* dist = a.knnDist + p * a.kOut;
        ok = detail::computeScores<0>([&](int i) { return dist[i]; }, a.topn, a.topnn, a.boost,
                                      [&](int i, float s) { scores[i] = s; });
    }
    ok = __shfl_sync(0xffffffffu, ok, 0);
    __syncwarp();
    return {ok && !bad, bad, ok};
}

/// Reduces the lanes' sums; lane 0 solves (or falls back) and writes the point.
__device__ void finishPoint(const ProjectionArgs& a, size_t p, LeastSquares ls, PointSetup s,
                            const float* scores) {
    ls.a00 = detail::warpSum(ls.a00);
    ls.a01 = detail::warpSum(ls.a01);
    ls.a11 = detail::warpSum(ls.a11);
    ls.b0 = detail::warpSum(ls.b0);
    ls.b1 = detail::warpSum(ls.b1);
    if (threadIdx.x % 32 != 0) return;
    float2 y;
    const bool placed = s.ok && detail::solve(ls, y);
    const uint32_t* idx = a.knnIdx + p * a.kOut;
    if (placed)
        detail::referenceWhereIllConditioned(a, p, ls, a.knnDist + p * a.kOut, 1,
                                             reinterpret_cast<const int*>(idx), y);
    if (!placed) {
        y = detail::neighbourMean([&](int i) { return idx[i]; }, [&](int i) { return scores[i]; },
                                  s.scored, a.topn, a.low);
        if (s.bad)
            detail::queueNonFinite(a, p);
        else
            atomicAdd(a.counters + 1, 1ull);
    }
    reinterpret_cast<float2*>(a.out)[p] = y;
}

__global__ void __launch_bounds__(kWarps * 32) alignedKernel(const ProjectionArgs a) {
    extern __shared__ float scoresPool[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t p = size_t(blockIdx.x) * kWarps + warp;
    if (p >= a.n) return;  // whole warps leave together; no block barrier follows
    float* scores = scoresPool + warp * a.topn;
    const PointSetup s = setupPoint(a, p, scores);
    LeastSquares ls;
    if (s.ok) {
        const uint32_t* idx = a.knnIdx + p * a.kOut;
        const float2* low = reinterpret_cast<const float2*>(a.low);
        const int vec = a.stride / 4;
        const float4* x = reinterpret_cast<const float4*>(a.points) + p * vec;
        const float4* landmarks = reinterpret_cast<const float4*>(a.landmarks);
        for (int i = 0; i < a.topn; ++i) {
            const uint32_t u = idx[i];
            const float2 lu = low[u];
            if (lane == 0) detail::addGravity(ls, scores[i], lu);
            const float4* lU = landmarks + size_t(u) * vec;
            for (int j = i + 1 + lane; j < a.topn; j += 32) {
                const uint32_t v = idx[j];
                const float4* lV = landmarks + size_t(v) * vec;
                float dot = 0, sqd = 0;
                for (int t = 0; t < vec; ++t) {
                    const float4 xv = x[t], uv = lU[t], vv = lV[t];
                    const float4 h =
                        make_float4(vv.x - uv.x, vv.y - uv.y, vv.z - uv.z, vv.w - uv.w);
                    dot += (xv.x - uv.x) * h.x + (xv.y - uv.y) * h.y + (xv.z - uv.z) * h.z +
                           (xv.w - uv.w) * h.w;
                    sqd += h.x * h.x + h.y * h.y + h.z * h.z + h.w * h.w;
                }
                if (sqd == 0.0f) continue;
                detail::addPair(ls, scores[i], scores[j], dot / sqd, lu, low[v], a.adjust);
            }
        }
    }
    finishPoint(a, p, ls, s, scores);
}

__global__ void __launch_bounds__(kWarps * 32) registersKernel(const ProjectionArgs a) {
    extern __shared__ float scoresPool[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t p = size_t(blockIdx.x) * kWarps + warp;
    if (p >= a.n) return;
    float* scores = scoresPool + warp * a.topn;
    const PointSetup s = setupPoint(a, p, scores);
    LeastSquares ls;
    if (s.ok) {
        const uint32_t* idx = a.knnIdx + p * a.kOut;
        const float2* low = reinterpret_cast<const float2*>(a.low);
        const int vec = a.stride / 4;
        const float4* x = reinterpret_cast<const float4*>(a.points) + p * vec;
        const float4* landmarks = reinterpret_cast<const float4*>(a.landmarks);
        if (lane == 0)
            for (int i = 0; i < a.topn; ++i) detail::addGravity(ls, scores[i], low[idx[i]]);
        const int blocks = (a.topn + 1) / 2;
        for (int bi = 0; bi < blocks; ++bi) {
            const int i0 = 2 * bi, i1 = min(2 * bi + 1, a.topn - 1);
            const uint32_t u0 = idx[i0], u1 = idx[i1];
            const float4 *lU0 = landmarks + size_t(u0) * vec, *lU1 = landmarks + size_t(u1) * vec;
            for (int bj = bi + lane; bj < blocks; bj += 32) {
                const int j0 = 2 * bj, j1 = min(2 * bj + 1, a.topn - 1);
                const uint32_t v0 = idx[j0], v1 = idx[j1];
                const float4 *lV0 = landmarks + size_t(v0) * vec,
                             *lV1 = landmarks + size_t(v1) * vec;
                float dot[2][2] = {}, sqd[2][2] = {};
                for (int t = 0; t < vec; ++t) {
                    const float4 xv = x[t];
                    const float4 uu[2] = {lU0[t], lU1[t]};
                    const float4 vv[2] = {lV0[t], lV1[t]};
#pragma unroll
                    for (int r = 0; r < 2; ++r) {
                        const float4 dx = make_float4(xv.x - uu[r].x, xv.y - uu[r].y,
                                                      xv.z - uu[r].z, xv.w - uu[r].w);
#pragma unroll
                        for (int c = 0; c < 2; ++c) {
                            const float4 h = make_float4(vv[c].x - uu[r].x, vv[c].y - uu[r].y,
                                                         vv[c].z - uu[r].z, vv[c].w - uu[r].w);
                            dot[r][c] += dx.x * h.x + dx.y * h.y + dx.z * h.z + dx.w * h.w;
                            sqd[r][c] += h.x * h.x + h.y * h.y + h.z * h.z + h.w * h.w;
                        }
                    }
                }
                const int is[2] = {i0, 2 * bi + 1}, js[2] = {j0, 2 * bj + 1};
                const uint32_t us[2] = {u0, u1}, vs[2] = {v0, v1};
#pragma unroll
                for (int r = 0; r < 2; ++r) {
#pragma unroll
                    for (int c = 0; c < 2; ++c) {
                        if (is[r] >= js[c] || js[c] >= a.topn || sqd[r][c] == 0.0f) continue;
                        detail::addPair(ls, scores[is[r]], scores[js[c]], dot[r][c] / sqd[r][c],
                                        low[us[r]], low[vs[c]], a.adjust);
                    }
                }
            }
        }
    }
    finishPoint(a, p, ls, s, scores);
}

}  // namespace

void launchProjectAligned(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    const unsigned blocks = unsigned((a.n + kWarps - 1) / kWarps);
    alignedKernel<<<blocks, kWarps * 32, kWarps * a.topn * sizeof(float), stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("alignedKernel");
}

void launchProjectRegisters(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    const unsigned blocks = unsigned((a.n + kWarps - 1) / kWarps);
    registersKernel<<<blocks, kWarps * 32, kWarps * a.topn * sizeof(float), stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("registersKernel");
}

}  // namespace sepal::cuda
