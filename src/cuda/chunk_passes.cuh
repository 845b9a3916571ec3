#pragma once
// What the resident and parts k-NN share: pass 1's group minima and the bound they give, pass 2's
// 32 x 32 chunk of products transposed through a warp's scratch into per-point bit masks, the
// staggered exact re-rank of the candidates from landmark rows in shared memory, and the
// coalesced store of the lists.

#include <cfloat>
#include <cstdint>

#include "cuda/embedsom_project.cuh"
#include "cuda/knn_device.cuh"

namespace sepal::cuda::detail {

/// Landmarks per transposed chunk of products.
constexpr int kChunk = 32;

/// Pass 1's state in the mma accumulators' registers: for the lane's point slots s (points
/// 8 s + gq) and fragment columns col, the two smallest v of BUCKETS groups each, so that a
/// point's quad holds 32 x BUCKETS values of as many different landmarks. Two minima of 16
/// groups bound tighter than one minimum of 32.
template <int BUCKETS>
struct GroupMinima {
    static constexpr int kValues = 32 * BUCKETS / 2;  // per point
    static constexpr int kVecs = kValues / 4;         // float4s per point row
    float lo[4][2][BUCKETS], hi[4][2][BUCKETS];

    __device__ __forceinline__ GroupMinima() {
#pragma unroll
        for (int s = 0; s < 4; ++s)
#pragma unroll
            for (int col = 0; col < 2; ++col)
#pragma unroll
                for (int b = 0; b < BUCKETS; ++b) lo[s][col][b] = hi[s][col][b] = FLT_MAX;
    }

    /// Keeps one tile's values (tileValues layout) in bucket b (a compile-time constant once
    /// unrolled, so that the arrays stay in registers).
    __device__ __forceinline__ void keep(const float (&v)[4][2], int b) {
#pragma unroll
        for (int s = 0; s < 4; ++s)
#pragma unroll
            for (int col = 0; col < 2; ++col) {
                hi[s][col][b] = fminf(hi[s][col][b], fmaxf(lo[s][col][b], v[s][col]));
                lo[s][col][b] = fminf(lo[s][col][b], v[s][col]);
            }
    }

    /// For the lane's own point: the topnn-th smallest of its kValues values, an upper bound of
    /// its topnn-th smallest v (topnn landmarks have a v at or below it). The quad's values
    /// reach their owner through the scratch (32 rows of kValues floats, XOR-swizzled float4s).
    __device__ __forceinline__ float bound(float* scratch, int topnn) const {
        const int lane = threadIdx.x & 31, gq = lane >> 2, t4 = lane & 3;
        float4* rows = reinterpret_cast<float4*>(scratch);
        auto slot = [](int row, int k) { return row * kVecs + (k ^ (row & (kVecs - 1))); };
#pragma unroll
        for (int s = 0; s < 4; ++s)
#pragma unroll
            for (int col = 0; col < 2; ++col)
#pragma unroll
                for (int b = 0; b < BUCKETS; b += 2)
                    rows[slot(8 * s + gq, t4 * (kVecs / 4) + col * (BUCKETS / 2) + b / 2)] =
                        make_float4(lo[s][col][b], hi[s][col][b], lo[s][col][b + 1],
                                    hi[s][col][b + 1]);
        __syncwarp();
        float mins[kValues];
#pragma unroll
        for (int k = 0; k < kVecs; ++k) {
            const float4 v = rows[slot(lane, k)];
            mins[4 * k] = v.x;
            mins[4 * k + 1] = v.y;
            mins[4 * k + 2] = v.z;
            mins[4 * k + 3] = v.w;
        }
        __syncwarp();  // the scratch is written again by pass 2
        sortAscending<kValues>(mins);
        // The largest of the first topnn (a select chain would become an indexed load from
        // local memory).
        float result = -FLT_MAX;
#pragma unroll
        for (int i = 0; i < kValues; ++i) result = fmaxf(result, i < topnn ? mins[i] : -FLT_MAX);
        return result;
    }
};

/// Where float4 k of point row i of a 32 x 32 chunk of products lies in the scratch. The rows are
/// unpadded; the XOR spreads both the mma's float2 stores (rows gq and gq + 8, columns 2 t4) and
/// each lane's float4 reads of its own row over all 32 banks.
__device__ __forceinline__ int chunkSlot(int i, int k) {
    return i * (kChunk / 4) + (k ^ (((i & 3) << 1) | ((i >> 2) & 1)));
}

/// The float4 at a shared-memory address.
__device__ __forceinline__ float4 loadSharedFloat4(uint32_t address) {
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(address));
    return v;
}

/// Stores tile ntl (0..3) of a chunk, as tileValues lays it out, into the scratch: point i's
/// values at row i.
__device__ __forceinline__ void storeChunkTile(float* scratch, int ntl, const float (&v)[4][2]) {
    const int lane = threadIdx.x & 31, gq = lane >> 2, t4 = lane & 3;
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
        // Rows gq and gq + 8 share their swizzle.
        const int slot = chunkSlot(16 * mt + gq, 2 * ntl + (t4 >> 1));
        float* top = scratch + 4 * slot + 2 * (t4 & 1);
        *reinterpret_cast<float2*>(top) = make_float2(v[2 * mt][0], v[2 * mt][1]);
        *reinterpret_cast<float2*>(top + 8 * kChunk) =
            make_float2(v[2 * mt + 1][0], v[2 * mt + 1][1]);
    }
}

/// The lane's own row of the chunk as a mask: bit 31 - i set when value i <= bound, given
/// above = nextafter(bound, +inf). v <= bound is v < above, the sign bit of v - above (rounding
/// keeps the sign; an underflow gives -0), and a funnel shift moves that bit into the mask: two
/// instructions per value, no branch (a branch per value made the warp run every value's store
/// path that any lane needed).
__device__ __forceinline__ uint32_t chunkMask(const float* scratch, float above) {
    const float4* rows = reinterpret_cast<const float4*>(scratch);
    const int lane = threadIdx.x & 31;
    uint32_t mask = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        const float4 v = rows[chunkSlot(lane, k)];
        mask = __funnelshift_l(__float_as_uint(v.x - above), mask, 1);
        mask = __funnelshift_l(__float_as_uint(v.y - above), mask, 1);
        mask = __funnelshift_l(__float_as_uint(v.z - above), mask, 1);
        mask = __funnelshift_l(__float_as_uint(v.w - above), mask, 1);
    }
    return mask;
}

/// The point's exact row (NaN and infinity as 0), rotated for rerankStaggered: x[s] is its
/// float4 (s - r) mod KVEC; zeros for an inactive lane.
template <int KVEC>
__device__ __forceinline__ void loadRotatedRow(const float* points, size_t p, bool active, int r,
                                               float4 (&x)[KVEC]) {
    const float4* src = reinterpret_cast<const float4*>(points) + (active ? p : 0) * KVEC;
    bool ignored = false;
#pragma unroll
    for (int s = 0; s < KVEC; ++s)
        x[s] = finiteOrZero4(active ? src[(s - r) & (KVEC - 1)] : make_float4(0, 0, 0, 0), ignored);
}

/// Exact re-rank in the reference's arithmetic (each square rounded before it is added): the
/// difference-form distances from the point
/// (x, rotated: x[s] is its float4 (s - r) mod KVEC, r = lane mod 8) to `total` landmark rows
/// (unpadded, KVEC float4s each, from shared address rowsAddress), row candidateAt(e) for
/// e = 0 .. total - 1 in index order, inserted into the list as offset + row.
/// float4 c of every row lies in banks 4 (c % 8) to 4 (c % 8) + 3: lane l works r steps behind,
/// on float4 (s - r) of its candidate at step s, so the 8 lanes of a quarter warp read 8
/// different bank groups whatever their rows. Round R finishes candidate R - 1 (steps s < r) and
/// starts candidate R (s >= r); each sum still runs in dimension order, as squaredDistance's.
/// Two candidates per round, so that two independent sums hide each other's latency.
template <int KVEC, int LIST, class CandidateAt>
__device__ __forceinline__ void rerankStaggered(const float4 (&x)[KVEC], int r,
                                                uint32_t rowsAddress, int total,
                                                CandidateAt candidateAt, int offset,
                                                float (&bd)[LIST], int (&bi)[LIST]) {
    float acc[2] = {0, 0}, finished[2] = {0, 0};
    int previous[2] = {0, 0};
    const int rounds = (total + 1) / 2;
    for (int round = 0; round <= rounds; ++round) {
        // Shared-memory addresses of float4 -r of the candidate started now, and of float4
        // KVEC - r of the one finished now: step s reads one of them + 16 s.
        uint32_t current[2], earlier[2];
        int j[2];
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            const int e = 2 * round + u;
            j[u] = e >= total ? previous[u] : candidateAt(e);
            current[u] = rowsAddress + uint32_t(j[u] * KVEC - r) * 16u;
            earlier[u] = rowsAddress + uint32_t(previous[u] * KVEC + KVEC - r) * 16u;
        }
#pragma unroll
        for (int s = 0; s < KVEC; ++s) {
#pragma unroll
            for (int u = 0; u < 2; ++u) {
                if (s == r) finished[u] = acc[u], acc[u] = 0;
                // One select and one load (plain indexing gave two loads or a select of
                // indices and two more instructions of address arithmetic per step).
                const float4 lv = loadSharedFloat4((s < r ? earlier[u] : current[u]) + 16u * s);
                float e = x[s].x - lv.x;
                acc[u] = addSquare(acc[u], e);
                e = x[s].y - lv.y;
                acc[u] = addSquare(acc[u], e);
                e = x[s].z - lv.z;
                acc[u] = addSquare(acc[u], e);
                e = x[s].w - lv.w;
                acc[u] = addSquare(acc[u], e);
            }
        }
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            // Candidate 2 (round - 1) + u is finished; in index order: even, then odd.
            if (round > 0 && 2 * (round - 1) + u < total && finished[u] < bd[LIST - 1])
                insertSorted<LIST>(bd, bi, finished[u], offset + previous[u]);
            previous[u] = j[u];
        }
    }
}

/// Writes the warp's lists (a.kOut entries per point, the warp's points p0 ..) through the
/// scratch (2 x 32 x LIST floats) with coalesced stores: the 32 points own one contiguous range.
/// A point with NaN or infinity (bad) is queued for placeNonFinite when a projection follows,
/// and its list marked (distance -1) for it.
template <int LIST>
__device__ __forceinline__ void storeLists(const ProjectionArgs& a, size_t p0, bool bad,
                                           const float (&bd)[LIST], const int (&bi)[LIST],
                                           float* scratch) {
    const int lane = threadIdx.x & 31, kOut = a.kOut;
    __syncwarp();  // every lane has finished with the scratch (the parts k-NN's candidates)
    float* outDist = scratch;
    int* outIdx = reinterpret_cast<int*>(scratch + 32 * LIST);
#pragma unroll
    for (int i = 0; i < LIST; ++i) {
        if (i < kOut) {
            outDist[lane * kOut + i] = bd[i];
            outIdx[lane * kOut + i] = bi[i];
        }
    }
    if (bad && a.out) outDist[lane * kOut] = -1.0f;
    __syncwarp();
    if (p0 < a.n) {
        const size_t first = p0 * kOut, last = (a.n < p0 + 32 ? a.n : p0 + 32) * kOut;
        for (size_t e = first + lane; e < last; e += 32) {
            a.knnDist[e] = outDist[e - first];
            a.knnIdx[e] = uint32_t(outIdx[e - first]);
        }
        if (bad && a.out && p0 + lane < a.n) queueNonFinite(a, p0 + lane);
    }
    __syncwarp();  // the scratch is written again by the next tile
}

}  // namespace sepal::cuda::detail
