#pragma once
// Launchers of the EmbedSOM kernels (fused, bitonic k-NN, aligned and registers projections)
// and their helpers. All pointers are device pointers; launches are checked and asynchronous.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sepal::cuda {

/// The tensor kernel's view of the landmarks (TensorLandmarkBuffers::upload): centred on `centre`,
/// rounded to TF32, in a fixed shuffled order (so that the kernel's landmark groups are not
/// aligned with a map's rows), padded with zero rows to gPad, laid out as mma.sync fragments
/// (tensorFragmentIndex).
struct TensorLandmarks {
    const float* rows = nullptr;     ///< gPad x tensorStride(stride) values, fragment order
    const float* norms = nullptr;    ///< gPad: |L_perm[i] - centre|^2 (FLT_MAX for padding)
    const uint16_t* perm = nullptr;  ///< gPad: the landmark at shuffled position i
    const float* centre = nullptr;   ///< tensorStride(stride): the landmarks' mean (zeros beyond d)
    int gPad = 0;                    ///< g rounded up to kTensorPadding
    float radius = 0;                ///< max_j |L_j - centre|, rounded up
    /// The same centred landmarks in index order as FP16 m16n8k16 B fragments (halfFragmentIndex),
    /// scaled by halfScale; prepared with the unshuffled order only (null otherwise).
    const uint16_t* halves = nullptr;
    float halfScale = 0;  ///< a power of two: radius x halfScale lies in [8, 16)
    float halfReach = 0;  ///< largest |x - centre| whose scaled coordinates fit FP16 (-1: none)
};

/// Columns of the FP16 landmark fragments: the point stride, at least one pair of 16-wide k-steps.
inline int halfFragmentWidth(int stride) {
    return stride < 32 ? 32 : stride;
}

/// Where value (landmark i, dimension t) sits in TensorLandmarks::halves for fragment width kw:
/// tiles of 8 landmarks, then pairs of 16-dimension k-steps, then the 32 lanes of a warp, each
/// with the 8 halves {b0, b1, b2, b3} of the even k-step and of the odd one of an m16n8k16 FP16
/// mma.sync (lane = 4 x landmark-in-tile + t holds dimensions 2 t, 2 t + 1, 2 t + 8, 2 t + 9).
inline size_t halfFragmentIndex(size_t i, size_t t, int kw) {
    const size_t tile = i / 8, pair = t / 32, step = (t / 16) % 2, within = t % 16;
    const size_t lane = (i % 8) * 4 + (within % 8) / 2;
    return ((tile * size_t(kw / 32) + pair) * 32 + lane) * 8 + step * 4 + (within / 8) * 2 +
           within % 2;
}

/// Columns of the tensor kernel's landmark rows: the point stride, at least one k-step pair.
inline int tensorStride(int stride) {
    return stride < 16 ? 16 : stride;
}

/// Where value (landmark i, dimension t) sits in TensorLandmarks::rows for row width ks: tiles
/// of 8 landmarks, then pairs of 8-dimension k-steps, then the 32 lanes of a warp, each with the
/// float4 {b0, b1} of the even k-step and {b0, b1} of the odd one of an m16n8k8 TF32 mma.sync
/// (lane = 4 x landmark-in-tile + t holds dimensions t and t + 4 of each k-step).
inline size_t tensorFragmentIndex(size_t i, size_t t, int ks) {
    const size_t tile = i / 8, pair = t / 16, step = (t / 8) % 2, within = t % 8;
    const size_t lane = (i % 8) * 4 + within % 4;
    return ((tile * size_t(ks / 16) + pair) * 32 + lane) * 4 + step * 2 + within / 4;
}

/// What every EmbedSOM kernel reads and writes (device pointers; unused outputs are null).
struct ProjectionArgs {
    const float* points = nullptr;     ///< n x stride, padded with zeros beyond d
    size_t n = 0;                      ///< number of points
    int stride = 0;                    ///< padded dimension (paddedDim(d))
    int dim = 0;                       ///< d, the dimensions that hold data
    const float* landmarks = nullptr;  ///< g x stride, padded with zeros beyond d
    int g = 0;                         ///< number of landmarks
    const float* low = nullptr;        ///< g x 2 landmark positions
    /// Triangular pair table (pairIndex): c_uv = 1 / (2 |L_u - L_v|^2) and
    /// w_uv = (1 + |l_u - l_v|^2)^-adjust / |l_u - l_v|^2; both 0 for pairs the spec skips.
    const float2* pairTerms = nullptr;
    /// List projection only (null: it reads pairTerms): the same terms in a dense table by the
    /// landmarks' locality rank, (u, v) at landmarkRank[u] g + landmarkRank[v] (pair_rank.h).
    const float2* pairTermsByRank = nullptr;
    const uint16_t* landmarkRank = nullptr;  ///< g ranks, with pairTermsByRank
    int topn = 0;                            ///< k neighbours that place the point
    int topnn = 0;                           ///< neighbours found (topn, or topn + 1 to normalise)
    float boost = 0;                         ///< max(exp(-smooth - 1), 1e-5)
    float adjust = 1;                        ///< >= 0; pairs are weighted by (1 + |h|^2)^-adjust
    float* out = nullptr;                    ///< n x 2 result, or null (k-NN only)
    uint32_t* knnIdx = nullptr;              ///< n x kOut neighbour indices, or null
    float* knnDist = nullptr;                ///< n x kOut squared distances, or null
    int kOut = 0;                            ///< neighbours written per point to knnIdx/knnDist
    unsigned long long* counters = nullptr;  ///< [0] non-finite points, [1] degenerate points
    uint32_t* nonFinite = nullptr;           ///< n entries: indices of points with NaN or infinity
    float* scratch = nullptr;                ///< kFixThreads x topnn floats for placeNonFinite
    uint32_t* scratchIdx = nullptr;          ///< kFixThreads x topnn indices for placeNonFinite
    TensorLandmarks tensor;                  ///< the tensor kernel's landmark copy
    /// Optional (timing runs): [0] += candidates re-ranked, [1] += points scanned exactly.
    unsigned long long* tensorStats = nullptr;
    /// Index of points[0] in the whole set: a chunk of it queues whole-set indices in nonFinite.
    size_t first = 0;
    /// Multiprocessors the persistent launches size their grids for (0: the whole device; fewer
    /// when the kernel runs in one partition of an SmSplit).
    int multiprocessors = 0;
    /// List and table projections only: the n cells to project are rows[0..n) of the whole set
    /// (null: cells 0..n); lists, points and out are indexed by cell.
    const uint32_t* rows = nullptr;
    /// List and table projections only: per cell, 1 when it fell back to its neighbours' mean,
    /// else 0 (null: not written).
    uint8_t* fellBack = nullptr;
    /// Table and list projections only (null: solved inline): the cells whose system is
    /// ill-conditioned are queued here (up to deferredCapacity; beyond it solved inline) and
    /// solved the reference's way by finishDeferredSolves, a warp each. Inline, one such lane
    /// held its whole warp for the reference's O(k^2 d) steps. deferredCount[0] counts them.
    uint32_t* deferred = nullptr;
    unsigned long long* deferredCount = nullptr;  ///< cells queued in deferred (may pass capacity)
    size_t deferredCapacity = 0;                  ///< cells deferred holds
    /// Table projection only (null: placed inline): the cells one of whose pairs needs the exact
    /// forms of D (a crowded model's) are queued here (up to rareCapacity; beyond it placed
    /// inline) and placed by the list projection over the queue, a warp a cell (or, with
    /// SEPAL_TABLE_QUEUE_LISTS=0, by a second launch of the table kernel). Inline, one such lane
    /// held its whole warp for them: a batch SOM's training left a few percent of the cells such
    /// and slowed its projection five times.
    uint32_t* rare = nullptr;
    unsigned long long* rareCount = nullptr;  ///< cells queued in rare (may pass capacity)
    size_t rareCapacity = 0;                  ///< cells rare holds
    /// With rows: their number on the device (at most n), for a launch over a queue (table and
    /// list projections).
    const unsigned long long* rowsCount = nullptr;
    /// Every cell takes the exact forms without trying the fast one first (the table kernel's
    /// launch over rare, with SEPAL_TABLE_QUEUE_LISTS=0).
    bool rareOnly = false;
};

/// Cells the deferred queue of the table and list projections holds at least (4 MB of indices);
/// a launch of more than 16 times as many cells has a 16th of its cells' room (the app's default
/// recipe leaves about 4 % of the cells ill-conditioned).
constexpr size_t kDeferredCapacity = size_t(1) << 20;

/// Threads of the placeNonFinite launch (its scratch holds topnn entries per thread).
constexpr int kFixThreads = 4096;

// The kernels' limits. The rules that combine them with a shape and a device, and say why a
// kernel refuses one, are in kernel_limits.h; nothing else decides what a kernel supports.

/// Largest stride the fused kernel takes (points are kept in registers).
constexpr int kFusedMaxStride = 128;
/// Largest neighbour list (topnn) the fused kernel keeps in registers.
constexpr int kFusedMaxList = 65;
/// Largest neighbour list of the fused kernel at stride 128 (registers).
constexpr int kFusedWideMaxList = 33;
/// Largest neighbour list the bitonic k-NN handles (its group of threads is list/2 wide).
constexpr int kBitonicMaxList = 1024;
/// Strides of the tensor-core k-NNs (TF32 and FP16 fragments): 8 to 64.
constexpr int kTensorMinStride = 8;
/// Largest stride of the tensor-core k-NNs.
constexpr int kTensorMaxStride = 64;
/// Largest neighbour list of the tensor kernel.
constexpr int kTensorMaxList = 33;
/// Largest neighbour list of the resident k-NN.
constexpr int kResidentMaxList = 17;
/// Largest neighbour list of the parts k-NN.
constexpr int kPartsMaxList = 33;
/// Most landmarks of the parts k-NN (16-bit candidate indices).
constexpr int kPartsMaxLandmarks = 65536;
/// Largest neighbour list of the table projection (its lists are unrolled in registers).
constexpr int kTableMaxList = 17;
/// Most landmarks of the table projection (a row start of the pair table in 16 bits).
constexpr int kTableMaxLandmarks = 362;
/// Largest neighbour list of the list projection.
constexpr int kListMaxList = 64;

/// The device's properties that the kernels' limits depend on.
struct DeviceLimits {
    int major = 0;           ///< compute capability (0: no device answered)
    int minor = 0;           ///< compute capability, minor
    size_t sharedBytes = 0;  ///< dynamic shared memory a block may opt into
};
/// The current device's limits, asked once per process (zeros when no device answers).
const DeviceLimits& currentDeviceLimits();

/// Row stride on the device for d dimensions: 4, 8, 16, 32, 64, 128, then multiples of 4.
int paddedDim(size_t d);

/// dst (n x stride) = src (n x d) padded with zeros; src and dst are device buffers.
void launchPadRows(const float* src, size_t n, int d, float* dst, int stride, cudaStream_t stream);
/// dst (n x stride) = the rows `rows` (device, n indices) of src (x stride); src and dst are
/// device buffers, 16-byte aligned, and stride a multiple of 4 (paddedDim's).
void launchGatherRows(const float* src, const size_t* rows, size_t n, int stride, float* dst,
                      cudaStream_t stream);
/// As above with 32-bit row indices (half the memory for lists of 10^8 rows).
void launchGatherRows(const float* src, const uint32_t* rows, size_t n, int stride, float* dst,
                      cudaStream_t stream);
/// pairTerms[pairIndex(u, v)] = (c_uv, w_uv) as in ProjectionArgs; landmarks g x stride, low
/// g x 2. Equal landmarks get (0, 0); landmarks on one 2D spot (hp < 1e-10) get w = 0.
void launchPairTerms(const float* landmarks, const float* low, int g, int stride, float adjust,
                     float2* pairTerms, cudaStream_t stream);
/// Number of entries of the triangular pair table for g landmarks (diagonal included).
inline size_t pairTableSize(size_t g) {
    return g * (g + 1) / 2;
}

/// Places the points queued in nonFinite (count in counters[0], read on the device): neighbours
/// from the finite coordinates only, then their score-weighted mean (embedsom.md edge cases).
void launchPlaceNonFinite(const ProjectionArgs& args, cudaStream_t stream);
/// Fused k-NN and projection; writes out and/or knnIdx/knnDist (kOut <= topnn).
void launchFused(const ProjectionArgs& args, cudaStream_t stream);
/// TensorLandmarks::gPad is a multiple of this: the tensor kernel's widest landmark tile.
constexpr int kTensorPadding = 64;
/// The tensor kernel: TF32 tensor-core candidates, exact re-rank, then the fused projection;
/// needs args.tensor. Same outputs, bit for bit the same neighbours, as launchFused.
void launchTensor(const ProjectionArgs& args, cudaStream_t stream);
/// Shared memory a block of the resident k-NN needs at its fewest warps: every landmark, exact
/// and as fragments, plus the warps' scratch (g = 256 at d = 32 fits in 227 KB).
size_t residentKnnSharedBytes(int stride, int g, int topnn);
/// The resident k-NN: the tensor kernel's candidates and exact re-rank with the landmarks held
/// in shared memory; writes knnIdx/knnDist (kOut = topnn), bit for bit the fused kernel's lists.
/// Needs args.tensor prepared in index order (TensorLandmarkBuffers::upload, unshuffled). When
/// args.out is set (a projection follows), points with NaN or infinity are queued for
/// launchPlaceNonFinite and their lists marked with a distance of -1.
void launchResidentKnn(const ProjectionArgs& args, cudaStream_t stream);
/// Shared memory a block of the parts k-NN needs with its smallest part (kTensorPadding
/// landmarks) and its warps' scratch.
size_t partsKnnSharedBytes(int stride, int g, int topnn);
/// The parts k-NN: FP16 tensor-core candidates and an exact re-rank, with the landmarks passing
/// through shared memory in parts; writes knnIdx/knnDist (kOut = topnn) as launchResidentKnn
/// does, bit for bit the fused kernel's lists. Needs args.tensor unshuffled, with halves.
void launchPartsKnn(const ProjectionArgs& args, cudaStream_t stream);
/// Points the parts k-NN takes in one pass of its persistent grid over this many
/// multiprocessors (a tile of 32 points per warp): chunks of whole passes leave no block idle.
size_t partsKnnPointsPerPass(int multiprocessors);
/// The list projection: reads knnIdx/knnDist (kOut = topnn), writes out; one warp per point,
/// the pair terms from the table in global memory (the dense table by rank where
/// args.pairTermsByRank is set). Skips lists marked by a k-NN (distance -1).
/// With args.rows, projects only those cells (the neighbour cache's re-projection).
void launchProjectLists(const ProjectionArgs& args, cudaStream_t stream);
/// launchProjectLists' kernel alone, its deferred queue left to the caller (the table
/// projection's launch over its exact-form queue, args.rows with args.rowsCount).
void launchListKernel(const ProjectionArgs& args, cudaStream_t stream);
/// Launches of the list projection in this process that read the pair terms by rank (the tests
/// check that the dense table was used).
unsigned long long listLaunchesByRank();
/// Shared memory a block of the table projection needs at its fewest warps: c_uv of every
/// landmark pair, the 2D positions and the warps' lists (g = 256: 129 KB of pairs).
size_t tableProjectionSharedBytes(int g, int topnn);
/// The table projection: reads knnIdx/knnDist (kOut = topnn), writes out; c_uv from shared
/// memory, w_uv computed. Skips lists marked by launchResidentKnn (distance -1). With
/// args.rows, projects only those cells.
void launchProjectTable(const ProjectionArgs& args, cudaStream_t stream);
/// Empties args.deferred's queue before a projection that fills it (nothing when it is null).
void beginDeferredSolves(const ProjectionArgs& args, cudaStream_t stream);
/// Places the cells a projection queued in args.deferred, the reference's way (after it, on the
/// same stream; nothing when args.deferred is null).
void finishDeferredSolves(const ProjectionArgs& args, cudaStream_t stream);
/// Bitonic k-NN baseline: writes the sorted topnn neighbours to knnIdx/knnDist (kOut = topnn).
void launchBitonicKnn(const ProjectionArgs& args, cudaStream_t stream);
/// "aligned" projection baseline: reads knnIdx/knnDist (kOut = topnn), writes out.
void launchProjectAligned(const ProjectionArgs& args, cudaStream_t stream);
/// "registers" projection baseline (2x2 pairs per thread): reads knnIdx/knnDist, writes out.
void launchProjectRegisters(const ProjectionArgs& args, cudaStream_t stream);

}  // namespace sepal::cuda
