#pragma once
// Single-precision keys of a query against every reference, over tiles of references in shared
// memory: what the exact k-NN graph's candidates and the trustworthiness ranks both scan.

#include <cstdint>

namespace sepal::cuda {

constexpr int kTileQueries = 128;  // one query per thread, a block's queries
constexpr int kTileRefs = 32;      // references in shared memory at once
constexpr int kTileColumns = 32;   // columns of a tile

/// How a metric's key sums over columns in single precision.
enum class Sum { Squares, Absolute, Dot };

template <Sum S>
__device__ __forceinline__ float addTerm(float q, float r, float acc) {
    if constexpr (S == Sum::Squares) {
        const float t = q - r;
        return fmaf(t, t, acc);
    } else if constexpr (S == Sum::Absolute) {
        return acc + fabsf(q - r);
    } else {
        return fmaf(q, r, acc);
    }
}

/// Inserts (s, ref) into a list of keys kept ascending (count entries; the largest falls off a
/// full list); equal keys keep their arrival order.
template <int C>
__device__ __forceinline__ void insertAscending(float (&key)[C], uint32_t (&id)[C], int& count,
                                                float s, uint32_t ref) {
    int at = count < C ? count++ : C - 1;
    while (at > 0 && s < key[at - 1]) {
        key[at] = key[at - 1];
        id[at] = id[at - 1];
        --at;
    }
    key[at] = s;
    id[at] = ref;
}

/// Calls visit(ref, key) for every usable reference other than q (in ascending order), with
/// the single-precision key of row q against it (squared differences, absolute differences, or
/// 1 - the dot product). Every thread of the block calls it (it synchronises); an inactive one
/// visits nothing. W: the query's columns held in registers: 4 or 32 for rows of at most that
/// many columns (each reference finished before the next: a small loop body), 0 for wider rows
/// (a tile summed over column chunks).
template <Sum S, int W, class Visit>
__device__ void scanReferences(const float* __restrict__ rows, const uint8_t* __restrict__ usable,
                               int n, int d, int q, bool active, Visit&& visit) {
    // Read as float4: a shared-memory load feeds four columns.
    __shared__ float4 tile[kTileRefs][kTileColumns / 4];
    __shared__ uint8_t tileUsable[kTileRefs];
    constexpr int kWidth = W == 0 ? kTileColumns : W;
    const int t = threadIdx.x;
    float qv[kWidth];
    const auto loadQuery = [&](int c0) {
#pragma unroll
        for (int c = 0; c < kWidth; ++c)
            qv[c] = active && c0 + c < d ? rows[size_t(q) * d + c0 + c] : 0.0f;
    };
    const auto loadTile = [&](int r0, int c0) {
        __syncthreads();
        float* flat = reinterpret_cast<float*>(&tile[0][0]);
        for (int e = t; e < kTileRefs * kWidth; e += blockDim.x) {
            const int r = e / kWidth, c = e % kWidth;
            flat[r * kTileColumns + c] =
                r0 + r < n && c0 + c < d ? rows[size_t(r0 + r) * d + c0 + c] : 0.0f;
        }
        if (t < kTileRefs) tileUsable[t] = r0 + t < n ? usable[r0 + t] : 0;
        __syncthreads();
    };
    const auto finish = [](float sum) { return S == Sum::Dot ? 1.0f - sum : sum; };
    if constexpr (W != 0) loadQuery(0);
    for (int r0 = 0; r0 < n; r0 += kTileRefs) {
        if constexpr (W != 0) {
            loadTile(r0, 0);
            if (!active) continue;
                // Two partial sums per reference: shorter dependency chains (the error bounds hold
                // for any order of the sum).
#pragma unroll 4
            for (int r = 0; r < kTileRefs; ++r) {
                float a = 0.0f, b = 0.0f;
#pragma unroll
                for (int c = 0; c < kWidth / 4; ++c) {
                    const float4 v = tile[r][c];
                    a = addTerm<S>(qv[4 * c], v.x, a);
                    b = addTerm<S>(qv[4 * c + 1], v.y, b);
                    a = addTerm<S>(qv[4 * c + 2], v.z, a);
                    b = addTerm<S>(qv[4 * c + 3], v.w, b);
                }
                const int ref = r0 + r;
                if (ref < n && ref != q && tileUsable[r]) visit(ref, finish(a + b));
            }
        } else {
            float acc[kTileRefs];
#pragma unroll
            for (int r = 0; r < kTileRefs; ++r) acc[r] = 0.0f;
            for (int c0 = 0; c0 < d; c0 += kTileColumns) {
                loadTile(r0, c0);
                loadQuery(c0);
#pragma unroll
                for (int r = 0; r < kTileRefs; ++r) {
                    float a = acc[r];
#pragma unroll
                    for (int c = 0; c < kTileColumns / 4; ++c) {
                        const float4 v = tile[r][c];
                        a = addTerm<S>(qv[4 * c], v.x, a);
                        a = addTerm<S>(qv[4 * c + 1], v.y, a);
                        a = addTerm<S>(qv[4 * c + 2], v.z, a);
                        a = addTerm<S>(qv[4 * c + 3], v.w, a);
                    }
                    acc[r] = a;
                }
            }
            if (!active) continue;
#pragma unroll
            for (int r = 0; r < kTileRefs; ++r) {
                const int ref = r0 + r;
                if (ref < n && ref != q && tileUsable[r]) visit(ref, finish(acc[r]));
            }
        }
    }
}

/// The exact key of rows a and b in double precision, in the CPU's order of operations
/// (knnKey; no fused multiply-adds). Cosine and pearson rows are (x - shift) / norm.
template <Sum S>
__device__ double exactKey(const float* a, const float* b, int d, double shiftA, double normA,
                           double shiftB, double normB) {
    double s = 0.0;
    for (int c = 0; c < d; ++c) {
        if constexpr (S == Sum::Squares) {
            const double t = __dsub_rn(double(a[c]), double(b[c]));
            s = __dadd_rn(s, __dmul_rn(t, t));
        } else if constexpr (S == Sum::Absolute) {
            s = __dadd_rn(s, fabs(__dsub_rn(double(a[c]), double(b[c]))));
        } else {
            const double u = normA > 0 ? __ddiv_rn(__dsub_rn(double(a[c]), shiftA), normA) : 0.0;
            const double v = normB > 0 ? __ddiv_rn(__dsub_rn(double(b[c]), shiftB), normB) : 0.0;
            s = __dadd_rn(s, __dmul_rn(u, v));
        }
    }
    return S == Sum::Dot ? __dsub_rn(1.0, s) : s;
}

/// The relative error bound of a single-precision squared-difference or absolute-difference key
/// of d columns (unit roundoff 2^-24, with room): |float key - exact| <= bound * exact.
__host__ __device__ inline double relativeKeyError(int d) {
    return 1.05 * double(d + 4) * 0x1p-24;
}
/// The absolute error bound of a single-precision 1 - dot key of unit rows.
__host__ __device__ inline double absoluteKeyError(int d) {
    return 1.05 * double(d + 8) * 0x1p-24;
}
/// What rounding in the subnormal range adds to a squared-difference or absolute-difference
/// key, where the relative bound does not hold: half the smallest subnormal per operation.
__host__ __device__ inline double subnormalKeyError(int d) {
    return double(2 * d + 4) * 0x1p-149;
}

}  // namespace sepal::cuda
