#pragma once
// Device helpers of the k-NN phases: the register top-k list, a register sorting network, and
// the TF32 and FP16 tensor-core operands and products of the tensor kernels.

#include <cstdint>

#include "cuda/embedsom_project.cuh"

namespace sepal::cuda::detail {

/// Inserts (d, j) into the sorted list when it is smaller than the last entry; equal distances
/// keep arrival order, so landmarks offered in index order stay ordered by index.
template <int LIST>
__device__ __forceinline__ void insertSorted(float (&bd)[LIST], int (&bi)[LIST], float d, int j) {
#pragma unroll
    for (int i = LIST - 1; i > 0; --i) {
        const bool shift = d < bd[i - 1];
        const bool here = d < bd[i];
        const float nd = shift ? bd[i - 1] : (here ? d : bd[i]);
        const int ni = shift ? bi[i - 1] : (here ? j : bi[i]);
        bd[i] = nd;
        bi[i] = ni;
    }
    if (d < bd[0]) {
        bd[0] = d;
        bi[0] = j;
    }
}

/// log2 of a power of two, at compile time.
__host__ __device__ constexpr int log2Of(int n) {
    return n <= 1 ? 0 : 1 + log2Of(n / 2);
}

/// Sorts N (a power of two) values ascending in registers: a bitonic network whose loops have
/// plain counters, so that they unroll fully and every index is a constant.
template <int N>
__device__ __forceinline__ void sortAscending(float (&v)[N]) {
    constexpr int kLog = log2Of(N);
#pragma unroll
    for (int lk = 1; lk <= kLog; ++lk) {
#pragma unroll
        for (int lj = lk - 1; lj >= 0; --lj) {
#pragma unroll
            for (int i = 0; i < N; ++i) {
                const int l = i ^ (1 << lj);
                if (l > i) {
                    const float lo = fminf(v[i], v[l]), hi = fmaxf(v[i], v[l]);
                    const bool up = (i & (1 << lk)) == 0;
                    v[i] = up ? lo : hi;
                    v[l] = up ? hi : lo;
                }
            }
        }
    }
}

/// Stages a warp's 32 point rows (points p0 .. p0 + 31 of a row-major array of KVEC float4s per
/// point, `avail` of them present, zeros for the rest) in `scratch`, rows of LD floats, with
/// coalesced loads; the rows are visible to the whole warp on return.
template <int KVEC, int LD>
__device__ __forceinline__ void stageRows(const float* points, size_t p0, size_t avail,
                                          float* scratch) {
    const int lane = threadIdx.x & 31;
    const float4* src = reinterpret_cast<const float4*>(points) + p0 * KVEC;
#pragma unroll
    for (int i = 0; i < KVEC; ++i) {
        const int e = lane + 32 * i, r = e / KVEC, c = e % KVEC;
        const float4 v = size_t(r) < avail ? src[e] : make_float4(0, 0, 0, 0);
        reinterpret_cast<float4*>(scratch + r * LD)[c] = v;
    }
    __syncwarp();
}

/// Stages the warp's 32 point rows (stageRows, rows of LD floats) and centres the lane's own row
/// on `centre` (NaN and infinity read as 0, recorded in `bad`): float4 c of the row becomes
/// operand(c, x, centred), of the exact and the centred values (kept or rounded for the mma
/// by the caller), and the row is padded with zeros to KROW floats. Returns |x - centre|^2; the
/// rows are visible to the whole warp on return.
template <int KVEC, int KROW, int LD, class Operand>
__device__ __forceinline__ float stageCentredRows(const float* points, size_t p0, size_t avail,
                                                  const float* centre, float* scratch, bool& bad,
                                                  Operand operand) {
    stageRows<KVEC, LD>(points, p0, avail, scratch);
    float4* row = reinterpret_cast<float4*>(scratch + (threadIdx.x & 31) * LD);
    float centred2 = 0;
    const float4* m4 = reinterpret_cast<const float4*>(centre);
#pragma unroll
    for (int c = 0; c < KVEC; ++c) {
        const float4 v = finiteOrZero4(row[c], bad);
        const float4 m = __ldg(m4 + c);
        const float c0 = v.x - m.x, c1 = v.y - m.y, c2 = v.z - m.z, c3 = v.w - m.w;
        centred2 = fmaf(c0, c0, fmaf(c1, c1, fmaf(c2, c2, fmaf(c3, c3, centred2))));
        row[c] = operand(c, v, make_float4(c0, c1, c2, c3));
    }
#pragma unroll
    for (int c = KVEC; c < KROW / 4; ++c) row[c] = make_float4(0, 0, 0, 0);
    __syncwarp();
    return centred2;
}

// The tensor-core helpers exist for compute capability 8.0 and later (and the host pass).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
/// One m16n8k8 TF32 product accumulated into c (PTX fragment layouts).
__device__ __forceinline__ void mmaTf32(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                        uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// x rounded to TF32 (cvt.rna), as the bits mma.sync takes.
__device__ __forceinline__ uint32_t toTf32(float x) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/// acc = the m16n8k8 TF32 products of one 16-point A tile (fa, KSTEPS k-steps) with one tile of
/// 8 landmarks whose B fragments the lane holds as float4 pairs of k-steps (b0, b1, b0', b1').
template <int KSTEPS>
__device__ __forceinline__ void mmaTile(const uint32_t (&fa)[KSTEPS][4],
                                        const float4 (&b)[KSTEPS / 2], float (&acc)[4]) {
    acc[0] = acc[1] = acc[2] = acc[3] = 0;
#pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
        const float4 bb = b[ks / 2];
        const uint32_t b0 = __float_as_uint(ks % 2 ? bb.z : bb.x);
        const uint32_t b1 = __float_as_uint(ks % 2 ? bb.w : bb.y);
        mmaTf32(acc, fa[ks], b0, b1);
    }
}

/// v = |L - m|^2 - 2 <x - m, L - m> of one tile of 8 landmarks for the warp's 32 points, from
/// the tile's B fragments b (loaded by the caller, from shared or global memory) and the lane's
/// two centred landmark norms: v[s][col] belongs to point 8 s + gq and landmark 8 nt + 2 t4 + col.
template <int KSTEPS>
__device__ __forceinline__ void tileValues(const uint32_t (&fa)[2][KSTEPS][4],
                                           const float4 (&b)[KSTEPS / 2], float2 norm,
                                           float (&v)[4][2]) {
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
        float acc[4];
        mmaTile<KSTEPS>(fa[mt], b, acc);
        v[2 * mt][0] = fmaf(-2.0f, acc[0], norm.x);
        v[2 * mt][1] = fmaf(-2.0f, acc[1], norm.y);
        v[2 * mt + 1][0] = fmaf(-2.0f, acc[2], norm.x);
        v[2 * mt + 1][1] = fmaf(-2.0f, acc[3], norm.y);
    }
}

/// One m16n8k16 FP16 product accumulated into c in float32 (PTX fragment layouts: the
/// accumulators are laid out as mmaTf32's).
__device__ __forceinline__ void mmaF16(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                       uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// The FP16 twin of tileValues: v = |L - m|^2 - 2 <x - m, L - m> of one tile of 8 landmarks for
/// the warp's 32 points, from A and B fragments scaled by s (k-steps of 16 dimensions; each
/// uint4 of b holds the two registers of an even and an odd k-step) and unscaled norms;
/// minusTwoOverS2 = -2 / s^2 (exact: s is a power of two). Same v layout as tileValues.
template <int KSTEPS>
__device__ __forceinline__ void halfTileValues(const uint32_t (&fa)[2][KSTEPS][4],
                                               const uint4 (&b)[(KSTEPS + 1) / 2], float2 norm,
                                               float minusTwoOverS2, float (&v)[4][2]) {
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
        float acc[4] = {0, 0, 0, 0};
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
            const uint4 bb = b[ks / 2];
            mmaF16(acc, fa[mt][ks], ks % 2 ? bb.z : bb.x, ks % 2 ? bb.w : bb.y);
        }
        v[2 * mt][0] = fmaf(minusTwoOverS2, acc[0], norm.x);
        v[2 * mt][1] = fmaf(minusTwoOverS2, acc[1], norm.y);
        v[2 * mt + 1][0] = fmaf(minusTwoOverS2, acc[2], norm.x);
        v[2 * mt + 1][1] = fmaf(minusTwoOverS2, acc[3], norm.y);
    }
}

/// Adds a warp's candidate statistics to stats (when counting): [0] += exact distances of its
/// active points, [1] += its active points that scanned every landmark.
__device__ __forceinline__ void countCandidates(unsigned long long* stats, bool active, int total,
                                                bool exhaustive) {
    if (!stats) return;
    const int exact = __reduce_add_sync(0xffffffffu, active ? total : 0);
    const int scans = __reduce_add_sync(0xffffffffu, int(exhaustive && active));
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(stats, (unsigned long long)exact);
        atomicAdd(stats + 1, (unsigned long long)scans);
    }
}

/// The tensor kernels' A operands: stages a warp's 32 point rows (points p0 .. p0 + 31 of a
/// row-major array of KVEC float4s per point, `avail` of them present, the rest zeros) in
/// `scratch` (rows of LD floats) with coalesced loads; centres the lane's own row on `centre`,
/// rounds it to TF32 and extracts the m16n8k8 A fragments (tile mt: the warp's points 16 mt ..
/// 16 mt + 15). Returns |x - centre|^2; x receives the lane's exact row with NaN and infinity
/// replaced by 0, and `bad` records such a replacement. The scratch is free again on return.
template <int KVEC, int KROW, int LD>
__device__ __forceinline__ float loadPointFragments(const float* points, size_t p0, size_t avail,
                                                    const float* centre, float* scratch,
                                                    float4 (&x)[KVEC], bool& bad,
                                                    uint32_t (&fa)[2][KROW / 8][4]) {
    const int lane = threadIdx.x & 31, gq = lane >> 2, t4 = lane & 3;
    const float centred2 = stageCentredRows<KVEC, KROW, LD>(
        points, p0, avail, centre, scratch, bad, [&](int c, float4 v, float4 d) {
            x[c] = v;
            return make_float4(__uint_as_float(toTf32(d.x)), __uint_as_float(toTf32(d.y)),
                               __uint_as_float(toTf32(d.z)), __uint_as_float(toTf32(d.w)));
        });
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
        for (int ks = 0; ks < KROW / 8; ++ks) {
            const float* top = scratch + (16 * mt + gq) * LD + 8 * ks + t4;
            const float* bottom = top + 8 * LD;
            fa[mt][ks][0] = __float_as_uint(top[0]);
            fa[mt][ks][1] = __float_as_uint(bottom[0]);
            fa[mt][ks][2] = __float_as_uint(top[4]);
            fa[mt][ks][3] = __float_as_uint(bottom[4]);
        }
    }
    __syncwarp();
    return centred2;
}

#endif

}  // namespace sepal::cuda::detail
