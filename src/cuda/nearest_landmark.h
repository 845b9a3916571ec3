#pragma once
// The training step's nearest landmark (k = 1) of every cell: split FP16 tensor-core products,
// an exact re-evaluation of the landmarks they cannot tell apart, and the per-landmark sums in the
// same pass when they fit in shared memory. Device pointers; launches are checked and
// asynchronous.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/device_buffer.h"

namespace sepal::cuda {

/// Landmark rows of the nearest kernel are padded to a multiple of this (whole steps of its scan).
constexpr int kNearestPadding = 64;

/// The landmarks as the nearest kernel reads them (NearestLandmarkBuffers::upload).
struct NearestLandmarks {
    /// gPad / 8 tiles x kSteps x 32 lanes of float4: the hi and lo FP16 parts of (L - centre)
    /// times scale as m16n8k16 B fragments (hi b0, hi b1, lo b0, lo b1), kSteps = width / 16 for
    /// the fragment width halfFragmentWidth(stride).
    const float* fragments = nullptr;
    /// gPad: |L - centre|^2 (FLT_MAX for the padding, and for a landmark equal to one of lower
    /// index)
    const float* norms = nullptr;
    const float* centre = nullptr;  ///< fragment width: the landmarks' mean (zeros beyond d)
    int gPad = 0;                   ///< g rounded up to kNearestPadding
    float scale = 0;                ///< a power of two: radius x scale lies in [8, 16)
    float radius = 0;               ///< max_j |L_j - centre|, rounded up
    float reach = 0;  ///< largest |x - centre| whose scaled coordinates fit FP16 (-1: none)
    /// The margin of a cell at r = |x - centre| (span = r + radius) is marginProduct r radius +
    /// marginSpan span + marginSquare span^2 (nearest_landmark.cu derives it).
    float marginProduct = 0;
    float marginSpan = 0;    ///< see marginProduct
    float marginSquare = 0;  ///< see marginProduct
    /// gPad flags, null when no two landmarks are equal: 1 for a landmark equal to one of higher
    /// index (its twins, whose norms are FLT_MAX so that the products never pass them: a twin
    /// never wins, for it ties with the lower index). A cell won by such a landmark has no lower
    /// bound, for its twins lie exactly as far.
    const unsigned char* twinned = nullptr;
    int twins = 0;  ///< landmarks equal to one of lower index
};

/// What the nearest kernel reads and writes (device pointers).
struct NearestArgs {
    const float* points = nullptr;     ///< n x stride, padded with zeros beyond d
    size_t n = 0;                      ///< cells (listed ones, with `cells`)
    int d = 0;                         ///< dimensions that hold data
    int stride = 0;                    ///< paddedDim(d), 8 to 64
    const float* landmarks = nullptr;  ///< g x stride, padded with zeros beyond d
    int g = 0;                         ///< landmarks
    NearestLandmarks prep;             ///< the same landmarks prepared for the products
    /// n: each cell's nearest landmark, the lower index on ties; kSkippedPoint for a cell with a
    /// non-finite coordinate or no squared distance below FLT_MAX.
    uint32_t* assign = nullptr;
    /// n: the squared distance to it (0 when skipped; -1 for a lone candidate's, below).
    float* dist = nullptr;
    /// False: a settled cell whose products left one candidate gets -1 for its distance (its
    /// winner needs none; the sums pass measures it as it does a kept cell's), unless the pass
    /// adds the sums or the bound from its value is not below FLT_MAX (a distance that
    /// overflows skips the cell). The gather of that landmark's row was a cell's only read
    /// outside its own tile, from L2 where the part fills shared memory.
    bool winnerDistances = true;
    /// With sums set the pass also adds every cell to its landmark's sums, which must be zero
    /// before the launch and the device must allow it (nearestFusesSums); null: assign and dist
    /// only, for landmark_sums.cu.
    double* sums = nullptr;
    unsigned long long* counts = nullptr;   ///< g: += the cells (with sums)
    double* inertia = nullptr;              ///< [0] += the squared distances (with sums)
    unsigned long long* skipped = nullptr;  ///< [0] += the skipped cells (with sums)
    /// [0] += cells whose candidates the products did not settle (the landmarks of some groups,
    /// or all of them, scanned exactly); may be null.
    unsigned long long* scans = nullptr;
    /// [0] += cells whose lone candidate won without its distance (dist -1); may be null.
    unsigned long long* lone = nullptr;
    /// n, may be null (with upper): a lower bound on the distance (not squared) from each cell
    /// to every landmark other than its nearest, for the training step's bounds (step_bounds.h);
    /// 0 where the pass leaves the cell to the scan or its nearest has an equal landmark
    /// (NearestLandmarks::twinned), +infinity for a cell skipped for a non-finite coordinate.
    float* lower = nullptr;
    float* upper = nullptr;  ///< n: an upper bound on the distance to its nearest (with lower)
    /// n, may be null: the cells to search, as indices into points and the per-cell arrays
    /// (assign, dist, lower, upper), which then hold every cell (the training step's bounds
    /// list the cells they did not settle); null: cells 0 .. n - 1.
    const uint32_t* cells = nullptr;
    /// gPad, may be null: the landmark in each slot of `prep` (an index into `landmarks`, the
    /// assignment and the ties; slots from g on are padding), where `prep` holds the landmarks in
    /// another order (nearest_pruning.h); null: slot j holds landmark j.
    const uint32_t* slotLandmark = nullptr;
    /// ceil(n / 128), may be null: for each 128 consecutive cells (a warpgroup's four tiles), bit
    /// s set for each step of 32 slots that may hold the nearest landmark of one of them; the pass
    /// computes the products of those steps only (one part of at most 1024 slots, no `lower`:
    /// nearestPrunes). Null: every step.
    const uint32_t* tileSteps = nullptr;
};

/// Shared memory a block of the nearest kernel needs at least: a part of kNearestPadding
/// landmarks and its warps' rows.
size_t nearestSharedBytes(int stride, int g);
/// Whether the nearest kernel can compute only the steps a tile needs (NearestArgs::tileSteps)
/// for g landmarks of this stride: all of them in one part of shared memory, at most 1024 slots.
bool nearestPrunes(int g, int stride);
/// Whether the current device lets the nearest kernel hold all g landmarks and the float sums in
/// shared memory, so that it adds the sums in the same pass.
bool nearestFusesSums(int g, int stride);
/// Whether launchNearestLandmark computes the products of g landmarks by warpgroup MMA here: a
/// device of compute capability 9.0, a build with sm_90a code, and g from 256 on
/// (SEPAL_NEAREST_WGMMA=1 at any g, =0 never: the m16n8k16 products, for comparisons); the same
/// winners and values either way.
bool nearestUsesWarpgroupProducts(int g);
/// Finds every cell's nearest landmark (and adds the sums when args.sums is set), except the
/// cells whose candidates the products do not settle: those are marked for launchNearestScan.
void launchNearestLandmark(const NearestArgs& args, cudaStream_t stream);
/// Scans exactly, for the cells launchNearestLandmark marked, the landmarks of the groups it left
/// unsettled (every landmark for a cell beyond the products' bound) (the same args, after it on
/// the same stream); every cell has its nearest landmark afterwards.
void launchNearestScan(const NearestArgs& args, cudaStream_t stream);

/// Owns the device copy behind a NearestLandmarks view and fills it from host landmarks.
class NearestLandmarkBuffers {
  public:
    /// Prepares landmarks (g x d, host, row-major; `padded` their g x stride copy on the device)
    /// for the nearest kernel; the copies are queued on `stream` from host memory this object
    /// keeps until the next upload.
    void upload(const float* high, size_t g, size_t d, int stride, const float* padded,
                cudaStream_t stream);
    /// As upload, for landmarks given in slot order (`high` and `padded` row s is landmark
    /// slotLandmark[s], g of them): equal landmarks leave the one of the lowest own index visible.
    void uploadInSlots(const float* high, size_t g, size_t d, int stride, const float* padded,
                       const uint32_t* slotLandmark, cudaStream_t stream);
    /// The view for NearestArgs::prep (valid until the next upload).
    NearestLandmarks view() const { return m_view; }
    /// Device memory held, in bytes.
    size_t deviceBytes() const;

  private:
    /// Hides each landmark equal to one of lower index from the products (m_norms FLT_MAX) and
    /// flags the one it equals (m_twinned, m_view.twins).
    /// `own` (g, may be null: the slots' own order) ranks equal landmarks.
    void markTwins(const float* high, size_t g, size_t d, const uint32_t* own);

    std::vector<float> m_centre, m_norms;
    std::vector<unsigned char> m_twinned;
    DeviceBuffer<float> m_fragmentsDev, m_normsDev, m_centreDev;
    DeviceBuffer<unsigned char> m_twinnedDev;
    NearestLandmarks m_view;
};

}  // namespace sepal::cuda
