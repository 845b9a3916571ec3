// The resident training step: the points and every buffer of a step live on the device from one
// step to the next; a step uploads the landmarks, runs the exact k = 1 search through the fastest
// kernel that takes the shape (kernel_limits.h decides: first the nearest-landmark kernel,
// nearest_landmark.cu, which also adds the sums in the same pass when they fit in shared memory,
// then the k-NN kernels), the per-landmark sums where the search did not add them
// (sorted_sums.cu or landmark_sums.cu) and the update (landmark_update.cu), and copies back g rows.
// Where the landmarks move little from one step to the next (a converging run), the nearest
// kernel searches only the cells whose bounds do not settle their landmark (step_bounds.h:
// Hamerly's bounds); the bounds are made only while they keep cells. In the steps whose bounds
// are not tried, the nearest pass is pruned (nearest_pruning.h): the step's copy of the cells is
// put in the order of their landmarks every few pruned steps (row i then holds cell origin[i]),
// and each 128 consecutive rows compute only the groups of landmarks that could win one.

#include "cuda/training_step.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/train/landmark_moves.h"
#include "cuda/cuda_error.h"
#include "cuda/cuda_event.h"
#include "cuda/device_buffer.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/kernel_limits.h"
#include "cuda/landmark_sums.h"
#include "cuda/landmark_update.h"
#include "cuda/nearest_landmark.h"
#include "cuda/nearest_pruning.h"
#include "cuda/step_bounds.h"
#include "cuda/tensor_landmarks.h"

namespace sepal::cuda {
namespace {

/// The nearest-landmark kernels from the fastest at k = 1 to the most general, with their rules.
struct KnnKernel {
    const char* name;
    std::string (*refusal)(const KernelShape&);
};
constexpr KnnKernel kKnnKernels[] = {{"nearest", nearestRefusal}, {"resident", residentKnnRefusal},
                                     {"parts", partsKnnRefusal},  {"tensor", tensorRefusal},
                                     {"fused", fusedRefusal},     {"bitonic", bitonicRefusal}};

/// The kernel `wanted` names ("auto": the first that takes the shape); throws when it refuses.
const KnnKernel& knnKernelFor(const std::string& wanted, const KernelShape& shape) {
    for (const KnnKernel& k : kKnnKernels) {
        if (wanted != "auto" && wanted != k.name) continue;
        const std::string why = k.refusal(shape);
        if (why.empty()) return k;
        if (wanted != "auto")
            throw InputError("the " + wanted + " k-NN cannot take this training step: " + why);
    }
    throw InputError("no CUDA k-NN kernel takes this training step (d = " +
                     std::to_string(shape.d) + ", g = " + std::to_string(shape.g) + ")");
}

/// Rows uploaded per copy when the points need padding to the device stride or gathering.
constexpr size_t kUploadRows = size_t(1) << 20;

/// The cells' rows from the host into `out` (count() x stride on the device), padded: in one
/// copy where no padding or gathering is needed, else a slice at a time through a staging
/// buffer (not a second copy of them all on either side).
void uploadRows(const TrainingCells& cells, int stride, float* out) {
    const size_t n = cells.count(), d = cells.d;
    if (size_t(stride) == d && !cells.rows) {
        SEPAL_CUDA_CHECK(
            cudaMemcpy(out, cells.points, n * d * sizeof(float), cudaMemcpyHostToDevice));
        return;
    }
    DeviceBuffer<float> staging;
    staging.reserve(std::min(n, kUploadRows) * d);
    std::vector<float> gathered;  // the slice's listed rows
    for (size_t first = 0; first < n; first += kUploadRows) {
        const size_t rows = std::min(kUploadRows, n - first);
        const float* slice = cells.points + first * d;
        if (cells.rows) {
            gathered.resize(rows * d);
            for (size_t r = 0; r < rows; ++r)
                std::copy_n(cells.points + (*cells.rows)[first + r] * d, d,
                            gathered.data() + r * d);
            slice = gathered.data();
        }
        // A pageable copy returns once the driver holds the bytes: `gathered` may be refilled.
        SEPAL_CUDA_CHECK(
            cudaMemcpy(staging.get(), slice, rows * d * sizeof(float), cudaMemcpyHostToDevice));
        launchPadRows(staging.get(), rows, int(d), out + first * stride, stride, nullptr);
    }
    SEPAL_CUDA_CHECK(cudaDeviceSynchronize());
}

/// The cells' rows from `deviceRows` (cells.n x stride on the device) into `out` (count() x
/// stride): one copy on the device for every row, a gather for listed rows, their indices
/// uploaded a slice at a time (8 bytes a cell instead of the row's 4 d).
void copyDeviceRows(const TrainingCells& cells, const float* deviceRows, int stride, float* out) {
    const size_t n = cells.count();
    if (!cells.rows) {
        SEPAL_CUDA_CHECK(
            cudaMemcpy(out, deviceRows, n * stride * sizeof(float), cudaMemcpyDefault));
        // A copy within the device returns before it is done: the cells are ready on return.
        SEPAL_CUDA_CHECK(cudaDeviceSynchronize());
        return;
    }
    DeviceBuffer<size_t> index;
    index.reserve(std::min(n, kUploadRows));
    for (size_t first = 0; first < n; first += kUploadRows) {
        const size_t rows = std::min(kUploadRows, n - first);
        SEPAL_CUDA_CHECK(cudaMemcpy(index.get(), cells.rows->data() + first, rows * sizeof(size_t),
                                    cudaMemcpyHostToDevice));
        launchGatherRows(deviceRows, index.get(), rows, stride, out + first * stride, nullptr);
    }
    SEPAL_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
size_t bytesOf(const DeviceBuffer<T>& b) {
    return b.capacity() * sizeof(T);
}

/// Whether the environment variable `name` is set to `value` (the step's switches, for
/// comparisons).
bool envIs(const char* name, const char* value) {
    const char* set = std::getenv(name);
    return set && std::strcmp(set, value) == 0;
}

/// Whether the nearest kernel adds the sums in its pass where they fit (SEPAL_TRAIN_FUSED_SUMS=1).
/// By default a pass of its own adds them after it (sorted_sums.cu, else landmark_sums.cu),
/// reading the cells again: on the H200 at 10^8 x 32 and g = 256 landmark_sums.cu took 8.0 ms
/// (sorted_sums.cu 3.3) where the sums in the pass added 8.6 to 10.7 ms to it (its
/// additions are compare-and-swap loops in shared memory, in a pass that holds 8 warps a
/// multiprocessor), so the second read is the cheaper.
bool fusedSumsWanted() {
    return envIs("SEPAL_TRAIN_FUSED_SUMS", "1");
}

/// Whether the sums after the pass group each block's points by landmark first where they can
/// (sorted_sums.cu; SEPAL_TRAIN_SORTED_SUMS=0 keeps landmark_sums.cu's one addition a point).
bool sortedSumsWanted() {
    return !envIs("SEPAL_TRAIN_SORTED_SUMS", "0");
}

/// Whether the nearest kernel's steps keep cells by their bounds (SEPAL_TRAIN_BOUNDS=0: every
/// cell searched every step, for comparisons).
bool boundsWanted() {
    return !envIs("SEPAL_TRAIN_BOUNDS", "0");
}

/// Whether the nearest pass measures every settled cell's distance to its winner
/// (SEPAL_NEAREST_WINNER_DISTANCES=1, for comparisons) rather than leaving a lone candidate's to
/// the sums pass.
bool winnerDistancesWanted() {
    return envIs("SEPAL_NEAREST_WINNER_DISTANCES", "1");
}

/// Landmarks from which a cell whose bounds fail has its distance to its landmark measured before
/// it is searched (Hamerly's second test). The test reads the cell's row, which the search reads
/// again if it fails: on the H200 at 10^8 x 32 it kept 7-10 % more cells; a settled k-means step
/// took 0.7 ms longer at g 256 (15.1 against 14.4 ms: the search it saves is cheap there) and
/// 2.4 ms less at g 1024 (44.4 against 46.8).
constexpr size_t kTightenFromLandmarks = 512;

/// Whether a step over g landmarks measures the failed cells' distances (SEPAL_TRAIN_TIGHTEN=0
/// never, =1 at any g, for comparisons).
bool tighteningWanted(size_t g) {
    if (envIs("SEPAL_TRAIN_TIGHTEN", "0")) return false;
    return envIs("SEPAL_TRAIN_TIGHTEN", "1") || g >= kTightenFromLandmarks;
}

/// Steps after which the bounds are tried again, however far the landmarks move (a run that
/// failed once with no move at all would otherwise never try again).
constexpr int kRetrySteps = 32;

/// Steps a pruned pass waits after one that took longer than the last full pass (its tile pass
/// did not pay: the landmarks all near every cell) before it is tried again.
constexpr int kPruneRetrySteps = 4;
/// The steps a try of the bounds first waits after a failed one where a pruned pass pays
/// (doubling after each failure up to kRetrySteps): on a batch SOM's schedule the bounds failed at
/// nearly every try, each costing two steps that search every group.
constexpr int kBoundsWaitSteps = 8;

/// Pruned steps after which the cells are put in the order of their landmarks again. Cells do
/// not move: 128 that lay together still do, only the landmarks' regions change (ordering 10^8
/// cells of 32 took 7 to 26 ms on an H200, its allocations included).
constexpr int kReorderSteps = 16;

/// Whether the nearest pass may be pruned (nearest_pruning.h; SEPAL_TRAIN_PRUNE=0 never, =1
/// whenever it applies, whatever the last pruned step computed, for tests and comparisons).
bool pruningWanted() {
    return !envIs("SEPAL_TRAIN_PRUNE", "0");
}

}  // namespace

struct TrainingStep::State {
    size_t n = 0, d = 0;
    int stride = 0;
    std::string knn;
    DeviceBuffer<float> points;                // n x stride
    DeviceBuffer<uint32_t> assign;             // n
    DeviceBuffer<float> dist;                  // n
    DeviceBuffer<float> given;                 // g x d: the step's landmarks
    DeviceBuffer<float> padded;                // g x stride: the same, for the k-NN kernels
    DeviceBuffer<float> fresh;                 // g x d: the new landmarks
    DeviceBuffer<double> sums;                 // g x d
    DeviceBuffer<unsigned long long> counts;   // g
    DeviceBuffer<double> denominators;         // g
    DeviceBuffer<double> inertia;              // 1
    DeviceBuffer<unsigned long long> skipped;  // 1
    // The nearest pass's counts: cells it scanned exactly, cells whose lone candidate it left
    // unmeasured.
    DeviceBuffer<unsigned long long> passCounts;  // 2
    DeviceBuffer<float> weights;                  // g x g: the batch SOM's neighbourhood
    // The bounds (step_bounds.h), allocated at the first step that uses them.
    DeviceBuffer<float> upper, lower;         // n
    DeviceBuffer<uint32_t> list;              // n: the cells to search again
    DeviceBuffer<float> moves;                // g
    DeviceBuffer<unsigned long long> listed;  // 2: cells listed, cells kept
    bool boundsOff = false;        // the bounds' buffers did not fit: every cell every step
    bool measureInertia = true;    // the distances left to the sums pass measured there
    bool boundsValid = false;      // upper and lower hold for the last step's landmarks
    std::vector<float> lastGiven;  // g x d: the nearest kernel's last step's landmarks
    size_t lastKept = 0;
    // The largest landmark move of the last step whose bounds kept fewer than a sixteenth of the
    // cells (infinity: none since the last that kept more): the bounds are made and used again
    // only once the landmarks move less than half as far.
    float failedMove = INFINITY;
    int stepsSinceTry = 0;  // steps since the bounds last tried to keep cells
    int boundsWait = 0;     // steps a try waits after the last where a pruned pass pays
    double keptMs = 0;      // the last search that the bounds shortened, in device ms
    // The pruned passes (nearest_pruning.h). The rows may be reordered: row i then holds the
    // cell origin[i] (points, assign, dist, bounds and the pass's results all go by row).
    NearestPruning pruning;
    DeviceBuffer<uint32_t> origin;     // n, empty while the rows are in the given order
    bool orderOff = false;             // no room to reorder the rows: no pruned pass
    int sinceOrdered = kReorderSteps;  // pruned steps since the rows were last ordered
    double prunedMs = 0, fullMs = 0;   // the last pruned and full passes' device ms (0: none)
    int stepsSincePrune = 0;           // steps since the last pruned one
    double lastShare = 1.0;            // of the last step (1: not pruned)
    size_t weightsG = 0;
    TensorLandmarkBuffers tensor;
    NearestLandmarkBuffers nearest;
    Event start, ordered, scanned, searched, assigned, summed, updated;
    size_t lastG = 0;
    bool stepped = false;
    std::string lastKernel = "none";
    std::string lastSumMode = "shared";
    size_t lastScans = 0;
    size_t lastLone = 0;
};

namespace {

/// Device memory the bounds leave free for the rest of the app (the neighbour cache keeps its
/// own reserve of the same size).
constexpr size_t kBoundsReserveBytes = size_t(512) << 20;

/// Allocates the bounds' buffers at the first step that uses them; false where they do not fit
/// beside the cells with kBoundsReserveBytes to spare (every step then searches every cell, as
/// without them).
bool allocateBounds(TrainingStep::State& s) {
    if (s.boundsOff) return false;
    if (s.upper.capacity() >= s.n && s.list.capacity() >= s.n) return true;
    const size_t need = 3 * s.n * sizeof(float);
    size_t freeBytes = 0, total = 0;
    if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess ||
        freeBytes < need + kBoundsReserveBytes) {
        cudaGetLastError();
        s.boundsOff = true;
        return false;
    }
    try {
        s.upper.reserve(s.n);
        s.lower.reserve(s.n);
        s.list.reserve(s.n);
        s.listed.reserve(2);
        return true;
    } catch (const std::exception&) {
        cudaGetLastError();  // the failed allocation's error, not a later launch's
        s.upper.release();
        s.lower.release();
        s.list.release();
        s.boundsOff = true;
        return false;
    }
}

/// Whether a pruned pass can serve a step over g landmarks: wanted, the shape one it takes, and
/// the rows in the order of their landmarks or room to put them so.
bool pruningApplies(const TrainingStep::State& s, size_t g) {
    return pruningWanted() && !(s.orderOff && s.origin.capacity() == 0) &&
           NearestPruning::applies(g, s.stride);
}

/// Whether the last pruned pass took less than the last full search (or either is unmeasured).
bool pruningPays(const TrainingStep::State& s, size_t g) {
    return pruningApplies(s, g) && (s.prunedMs == 0 || s.fullMs == 0 || s.prunedMs < s.fullMs);
}

/// Puts the rows in the order of the slot of their last landmark (NearestPruning::listBySlot):
/// the points, the last assignment and the map to the cells, through new buffers that replace the
/// old ones. False (the rows as they were) where the new buffers would leave less than
/// kBoundsReserveBytes of the device free: no ordering is tried again (the pruned passes go on
/// over the last order, if there was one).
bool orderRows(TrainingStep::State& s) {
    const size_t n = s.n;
    const size_t need = n * (size_t(s.stride) * sizeof(float) + 3 * sizeof(uint32_t) + 2);
    size_t freeBytes = 0, total = 0;
    if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess ||
        freeBytes < need + kBoundsReserveBytes) {
        cudaGetLastError();
        s.orderOff = true;
        return false;
    }
    try {
        DeviceBuffer<uint32_t> list, assign, origin;
        DeviceBuffer<float> points;
        list.reserve(n);
        if (!s.pruning.listBySlot(s.assign.get(), n, list.get(), nullptr)) {
            s.orderOff = true;
            return false;
        }
        points.reserve(n * size_t(s.stride));
        launchGatherRows(s.points.get(), list.get(), n, s.stride, points.get(), nullptr);
        assign.reserve(n);
        launchGatherListed(s.assign.get(), list.get(), n, assign.get(), nullptr);
        origin.reserve(n);
        launchGatherListed(s.origin.capacity() ? s.origin.get() : nullptr, list.get(), n,
                           origin.get(), nullptr);
        s.points.swap(points);
        s.assign.swap(assign);
        s.origin.swap(origin);
        // The old buffers go when these leave: cudaFree waits for the gathers.
    } catch (const std::exception&) {
        cudaGetLastError();  // the failed allocation's error, not a later launch's
        s.orderOff = true;
        return false;
    }
    s.boundsValid = false;  // the bounds went by the old rows
    s.sinceOrdered = 0;
    return true;
}

/// The keep-or-list pass of a step over the same landmarks as the last, moved by `moves`: the
/// cells to search again; the cells kept go to s.lastKept.
size_t listCellsToSearch(TrainingStep::State& s, size_t g, const LandmarkMoves& moves) {
    s.moves.reserve(g);
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(s.moves.get(), moves.moves.data(), g * sizeof(float),
                                     cudaMemcpyHostToDevice, nullptr));
    SEPAL_CUDA_CHECK(cudaMemsetAsync(s.listed.get(), 0, 2 * sizeof(unsigned long long), nullptr));
    KeepOrListArgs ka;
    ka.n = s.n;
    ka.g = int(g);
    ka.assign = s.assign.get();
    ka.dist = s.dist.get();
    ka.upper = s.upper.get();
    ka.lower = s.lower.get();
    ka.moves = s.moves.get();
    ka.largest = moves.largest;
    ka.second = moves.second;
    ka.largestAt = int(moves.largestAt);
    ka.list = s.list.get();
    ka.counts = s.listed.get();
    if (tighteningWanted(g)) {
        ka.points = s.points.get();
        ka.landmarks = s.padded.get();
        ka.stride = s.stride;
    }
    launchKeepOrList(ka, nullptr);
    unsigned long long counts[2] = {0, 0};  // the step waits: the search's size depends on it
    SEPAL_CUDA_CHECK(cudaMemcpy(counts, s.listed.get(), sizeof(counts), cudaMemcpyDeviceToHost));
    s.lastKept = size_t(counts[1]);
    return size_t(counts[0]);
}

}  // namespace

TrainingStep::TrainingStep(const float* points, size_t n, size_t d, const std::string& knn)
    : TrainingStep(TrainingCells{points, n, d}, nullptr, knn) {}

TrainingStep::TrainingStep(const TrainingCells& cells, const float* deviceRows,
                           const std::string& knn)
    : m_state(std::make_unique<State>()) {
    const size_t n = cells.count(), d = cells.d;
    if (d == 0) throw InputError("training points must have at least one dimension");
    if (cells.rows && !cells.rows->empty()) {
        const size_t last = *std::max_element(cells.rows->begin(), cells.rows->end());
        if (last >= cells.n)
            throw InputError("the training cells list row " + std::to_string(last) + " of " +
                             std::to_string(cells.n));
    }
    if (knn != "auto" && std::none_of(std::begin(kKnnKernels), std::end(kKnnKernels),
                                      [&](const KnnKernel& k) { return knn == k.name; }))
        throw InputError("unknown CUDA k-NN kernel '" + knn +
                         "' (auto, nearest, resident, parts, tensor, fused or bitonic)");
    State& s = *m_state;
    s.n = n;
    s.d = d;
    s.stride = paddedDim(d);
    s.knn = knn;
    s.points.reserve(std::max<size_t>(n * s.stride, 1));
    s.assign.reserve(std::max<size_t>(n, 1));
    s.dist.reserve(std::max<size_t>(n, 1));
    s.inertia.reserve(1);
    s.skipped.reserve(1);
    s.passCounts.reserve(2);
    if (n == 0) return;
    if (deviceRows)
        copyDeviceRows(cells, deviceRows, s.stride, s.points.get());
    else
        uploadRows(cells, s.stride, s.points.get());
}

TrainingStep::~TrainingStep() = default;

size_t TrainingStep::count() const {
    return m_state->n;
}

size_t TrainingStep::dim() const {
    return m_state->d;
}

StepResult TrainingStep::stepKmeans(const float* landmarks, size_t g) {
    return step(landmarks, g, false);
}

StepResult TrainingStep::stepBatchSom(const float* landmarks, size_t g) {
    return step(landmarks, g, true);
}

void TrainingStep::setNeighbourhood(const float* weights, size_t g) {
    if (g == 0 || g >= 65536)
        throw InputError("the CUDA training step takes 1 to 65535 landmarks (here " +
                         std::to_string(g) + ")");
    for (size_t e = 0; e < g * g; ++e)
        if (!std::isfinite(weights[e]))
            throw InputError("the batch SOM's neighbourhood weights must be finite");
    State& s = *m_state;
    s.weights.reserve(g * g);
    SEPAL_CUDA_CHECK(
        cudaMemcpy(s.weights.get(), weights, g * g * sizeof(float), cudaMemcpyHostToDevice));
    s.weightsG = g;
}

StepResult TrainingStep::step(const float* landmarks, size_t g, bool smooth) {
    State& s = *m_state;
    if (g == 0 || g >= 65536)
        throw InputError("the CUDA training step takes 1 to 65535 landmarks (here " +
                         std::to_string(g) + ")");
    if (smooth && s.weightsG != g)
        throw InputError("the batch SOM's neighbourhood is set for " + std::to_string(s.weightsG) +
                         " landmarks, the step has " + std::to_string(g));
    // A NaN landmark would be nobody's nearest and would stay NaN: refused rather than carried.
    for (size_t e = 0; e < g * s.d; ++e)
        if (!std::isfinite(landmarks[e]))
            throw InputError("landmark " + std::to_string(e / s.d) +
                             " has a non-finite coordinate: the CUDA training step needs finite "
                             "landmarks");
    const size_t gd = g * s.d;
    s.given.reserve(gd);
    s.padded.reserve(g * s.stride);
    s.fresh.reserve(gd);
    s.sums.reserve(gd);
    s.counts.reserve(g);
    s.denominators.reserve(g);
    SEPAL_CUDA_CHECK(
        cudaMemcpy(s.given.get(), landmarks, gd * sizeof(float), cudaMemcpyHostToDevice));
    launchPadRows(s.given.get(), g, int(s.d), s.padded.get(), s.stride, nullptr);
    SEPAL_CUDA_CHECK(cudaMemsetAsync(s.sums.get(), 0, gd * sizeof(double), nullptr));
    SEPAL_CUDA_CHECK(cudaMemsetAsync(s.counts.get(), 0, g * sizeof(unsigned long long), nullptr));
    SEPAL_CUDA_CHECK(cudaMemsetAsync(s.inertia.get(), 0, sizeof(double), nullptr));
    SEPAL_CUDA_CHECK(cudaMemsetAsync(s.skipped.get(), 0, sizeof(unsigned long long), nullptr));
    SEPAL_CUDA_CHECK(
        cudaMemsetAsync(s.passCounts.get(), 0, 2 * sizeof(unsigned long long), nullptr));

    ProjectionArgs a;
    a.points = s.points.get();
    a.n = s.n;
    a.stride = s.stride;
    a.dim = int(s.d);
    a.landmarks = s.padded.get();
    a.g = int(g);
    a.topn = a.topnn = a.kOut = 1;
    a.knnIdx = s.assign.get();
    a.knnDist = s.dist.get();
    // The kernel and its landmark copy are prepared before the timed region starts.
    s.lastKernel = "none";
    bool fused = false;
    bool bounded = false;  // the search writes the cells' bounds
    bool keep = false;     // the cells whose bounds settle them keep their landmark
    bool prune = false;    // the nearest pass computes only the steps each tile needs
    LandmarkMoves moves;   // since the last step (the same number of landmarks)
    if (s.n > 0) {
        s.lastKernel = knnKernelFor(s.knn, shapeOf(a)).name;
        if (s.lastKernel == "nearest") {
            fused = fusedSumsWanted() && nearestFusesSums(int(g), s.stride);
            const bool sameModel = s.lastG == g && s.lastGiven.size() == gd;
            if (sameModel) moves = landmarkMoves(s.lastGiven.data(), landmarks, g, s.d);
            if (!sameModel) s.failedMove = INFINITY;
            // Far from converging, the landmarks move too far for the bounds to keep many
            // cells: they are not made (writing them costs about 0.4 ms at 10^8 cells, the
            // keep-or-list pass 0.5) until the landmarks move less: half as far as when they
            // last failed. Where a pruned pass pays, a try (two steps that search every group:
            // the bounds made, then used) also waits boundsWait steps after one that failed.
            const bool promising =
                !(moves.largest >= 0.5f * s.failedMove) || s.stepsSinceTry >= kRetrySteps;
            const bool waiting = pruningPays(s, g) && s.stepsSinceTry < s.boundsWait;
            bounded = !fused && boundsWanted() && promising && !waiting && allocateBounds(s);
            keep = bounded && s.boundsValid && sameModel;
            // Pruned (the landmarks in its own order) where the bounds are not tried, the cells
            // have a landmark of the last step, and the last pruned pass paid (or kPruneRetrySteps
            // have passed since it did not).
            const bool paid = pruningPays(s, g) || s.stepsSincePrune >= kPruneRetrySteps ||
                              envIs("SEPAL_TRAIN_PRUNE", "1");
            prune = !fused && !bounded && sameModel && s.stepped && pruningApplies(s, g) && paid;
            if (!prune) s.nearest.upload(landmarks, g, s.d, s.stride, s.padded.get(), nullptr);
        } else if (s.lastKernel == "resident" || s.lastKernel == "parts" ||
                   s.lastKernel == "tensor") {
            // The resident and parts k-NNs read the landmarks in index order; tensor shuffled.
            s.tensor.upload(landmarks, g, s.d, s.stride, kTensorPadding, nullptr,
                            s.lastKernel == "tensor");
            a.tensor = s.tensor.view();
        }
    }
    s.boundsValid = false;  // until this step's search has stored them
    s.lastKept = 0;
    s.start.record();
    s.ordered.record();       // again after the rows' ordering, where a pruned pass orders them
    size_t listed = s.n;      // the cells searched
    bool leftToSums = false;  // some cells' distances may be left to the sums pass
    const bool tried = keep;
    if (keep) {
        listed = listCellsToSearch(s, g, moves);
    }
    if (s.lastKernel == "nearest") {
        NearestArgs na;
        na.points = s.points.get();
        na.n = s.n;
        na.d = int(s.d);
        na.stride = s.stride;
        na.landmarks = s.padded.get();
        na.g = int(g);
        na.prep = s.nearest.view();
        na.assign = s.assign.get();
        na.dist = s.dist.get();
        if (fused) {
            na.sums = s.sums.get();
            na.counts = s.counts.get();
            na.inertia = s.inertia.get();
            na.skipped = s.skipped.get();
        }
        na.scans = s.passCounts.get();
        na.lone = s.passCounts.get() + 1;
        na.winnerDistances = winnerDistancesWanted();
        // The pass may leave cells' distances to the sums pass (-1), as the bounds do.
        leftToSums = !na.winnerDistances && !fused;
        if (keep) {
            // Only the listed cells, read where they are.
            na.cells = s.list.get();
            na.n = listed;
        }
        if (bounded) {
            na.upper = s.upper.get();
            na.lower = s.lower.get();
        }
        // The preparation's device passes count in the search's time (the rows' order in
        // StepTimes::orderMs). The landmarks in slots, the rows ordered every few pruned steps,
        // then the tiles' steps.
        if (prune) {
            s.pruning.prepareLandmarks(na, landmarks, nullptr);
            if (s.sinceOrdered >= kReorderSteps && !s.orderOff) orderRows(s);
            s.ordered.record();
            na.points = s.points.get();
            na.assign = s.assign.get();
            // Rows never ordered (no room) make tiles that span the data: not worth a pass.
            prune = s.origin.capacity() > 0 && s.pruning.markTiles(na, nullptr);
            if (!prune) {  // no room for its buffers: every landmark, as without it
                s.nearest.upload(landmarks, g, s.d, s.stride, s.padded.get(), nullptr);
                na.prep = s.nearest.view();
                na.slotLandmark = nullptr;
                na.tileSteps = nullptr;
            }
        }
        launchNearestLandmark(na, nullptr);
        s.scanned.record();
        launchNearestScan(na, nullptr);
        s.searched.record();
    } else if (s.lastKernel == "resident")
        launchResidentKnn(a, nullptr);
    else if (s.lastKernel == "parts")
        launchPartsKnn(a, nullptr);
    else if (s.lastKernel == "tensor")
        launchTensor(a, nullptr);
    else if (s.lastKernel == "fused")
        launchFused(a, nullptr);
    else if (s.lastKernel == "bitonic")
        launchBitonicKnn(a, nullptr);
    if (s.lastKernel != "nearest") s.scanned.record(), s.searched.record();
    s.assigned.record();
    LandmarkSumArgs sa;
    sa.points = s.points.get();
    sa.n = s.n;
    sa.d = int(s.d);
    sa.stride = s.stride;
    sa.g = int(g);
    sa.assign = s.assign.get();
    sa.dist = s.dist.get();
    sa.sums = s.sums.get();
    sa.counts = s.counts.get();
    sa.inertia = s.inertia.get();
    sa.skipped = s.skipped.get();
    // The kept cells' distances, and those the nearest pass left, are measured by the sums
    // pass, from the rows it reads anyway (without them, the pass leaves those cells out of the
    // inertia).
    leftToSums = leftToSums || (keep && s.lastKept > 0);
    if (leftToSums && s.measureInertia) sa.landmarks = s.padded.get();
    if (fused) {
        s.lastSumMode = "fused";
    } else if (sortedSumsWanted() && sortedSumsFit(int(g), s.stride)) {
        s.lastSumMode = "sorted";
        launchSortedLandmarkSums(sa, nullptr);
    } else {
        s.lastSumMode = landmarkSumsFitShared(int(g), s.stride) ? "shared" : "global";
        launchLandmarkSums(sa, nullptr);
    }
    s.summed.record();
    LandmarkUpdateArgs ua;
    ua.sums = s.sums.get();
    ua.counts = s.counts.get();
    ua.weights = smooth ? s.weights.get() : nullptr;
    ua.old = s.given.get();
    ua.g = int(g);
    ua.d = int(s.d);
    ua.landmarks = s.fresh.get();
    ua.denominators = s.denominators.get();
    launchLandmarkUpdate(ua, nullptr);
    s.updated.record();

    StepResult r;
    r.landmarks.resize(gd);
    r.weights.resize(g);
    unsigned long long skipped = 0;
    SEPAL_CUDA_CHECK(
        cudaMemcpy(r.landmarks.data(), s.fresh.get(), gd * sizeof(float), cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(cudaMemcpy(r.weights.data(), s.denominators.get(), g * sizeof(double),
                                cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(&r.inertia, s.inertia.get(), sizeof(double), cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(&skipped, s.skipped.get(), sizeof(skipped), cudaMemcpyDeviceToHost));
    r.skipped = size_t(skipped);
    unsigned long long passCounts[2] = {0, 0};
    SEPAL_CUDA_CHECK(
        cudaMemcpy(passCounts, s.passCounts.get(), sizeof(passCounts), cudaMemcpyDeviceToHost));
    s.lastScans = size_t(passCounts[0]);
    s.lastLone = size_t(passCounts[1]);
    // Unmeasured distances leave the inertia short: none rather than a wrong one.
    if (!s.measureInertia && ((keep && s.lastKept > 0) || s.lastLone > 0))
        r.inertia = std::numeric_limits<double>::quiet_NaN();
    if (s.lastKernel == "nearest") s.lastGiven.assign(landmarks, landmarks + gd);
    s.lastShare = prune ? s.pruning.lastShare() : 1.0;
    if (s.lastKernel == "nearest" && !keep) {
        // The search's own time, the rows' ordering left out (it serves the next steps too).
        const double searchMs =
            (s.searched.secondsSince(s.start) - s.ordered.secondsSince(s.start)) * 1e3;
        (prune ? s.prunedMs : s.fullMs) = searchMs;
    } else if (keep) {
        s.keptMs = (s.searched.secondsSince(s.start)) * 1e3;
    }
    if (prune) ++s.sinceOrdered;
    s.stepsSincePrune = prune ? 0 : s.stepsSincePrune + 1;
    s.boundsValid = bounded;
    if (tried) {
        // Failed: too few cells kept, or a search slower than the last pruned one.
        const bool failed = s.lastKept * 16 < s.n ||
                            (pruningPays(s, g) && s.prunedMs > 0 && s.keptMs >= s.prunedMs);
        s.failedMove = failed ? moves.largest : INFINITY;
        s.boundsWait =
            failed ? std::min(2 * std::max(s.boundsWait, kBoundsWaitSteps / 2), kRetrySteps) : 0;
    }
    s.stepsSinceTry = tried ? 0 : s.stepsSinceTry + 1;
    s.lastG = g;
    s.stepped = true;
    return r;
}

std::vector<uint32_t> TrainingStep::assignment() const {
    const State& s = *m_state;
    if (!s.stepped) return {};
    std::vector<uint32_t> out(s.n);
    if (s.n > 0)
        SEPAL_CUDA_CHECK(
            cudaMemcpy(out.data(), s.assign.get(), s.n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    if (s.origin.capacity() == 0 || s.n == 0) return out;
    // The rows were reordered: row i holds cell origin[i].
    std::vector<uint32_t> origin(s.n), byCell(s.n);
    SEPAL_CUDA_CHECK(
        cudaMemcpy(origin.data(), s.origin.get(), s.n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < s.n; ++i) byCell[origin[i]] = out[i];
    return byCell;
}

NearestSums TrainingStep::nearestSums() const {
    const State& s = *m_state;
    NearestSums out;
    if (!s.stepped) return out;
    out.sums.resize(s.lastG * s.d);
    out.counts.resize(s.lastG);
    SEPAL_CUDA_CHECK(cudaMemcpy(out.sums.data(), s.sums.get(), out.sums.size() * sizeof(double),
                                cudaMemcpyDeviceToHost));
    static_assert(sizeof(uint64_t) == sizeof(unsigned long long));
    SEPAL_CUDA_CHECK(cudaMemcpy(out.counts.data(), s.counts.get(), s.lastG * sizeof(uint64_t),
                                cudaMemcpyDeviceToHost));
    return out;
}

StepTimes TrainingStep::lastTimes() const {
    const State& s = *m_state;
    StepTimes t;
    if (!s.stepped) return t;
    t.assignMs = s.assigned.secondsSince(s.start) * 1e3;
    t.exactScanMs = s.searched.secondsSince(s.scanned) * 1e3;
    t.orderMs = s.ordered.secondsSince(s.start) * 1e3;
    t.accumulateMs = s.summed.secondsSince(s.assigned) * 1e3;
    t.smoothMs = s.updated.secondsSince(s.summed) * 1e3;
    return t;
}

std::string TrainingStep::lastKernel() const {
    return m_state->lastKernel;
}

std::string TrainingStep::lastSumMode() const {
    return m_state->lastSumMode;
}

size_t TrainingStep::lastExactScans() const {
    return m_state->lastScans;
}

size_t TrainingStep::lastLoneCells() const {
    return m_state->lastLone;
}

void TrainingStep::measureInertia(bool on) {
    m_state->measureInertia = on;
}

size_t TrainingStep::lastKeptCells() const {
    return m_state->lastKept;
}

double TrainingStep::lastPrunedShare() const {
    return m_state->lastShare;
}

size_t TrainingStep::deviceBytes() const {
    const State& s = *m_state;
    return bytesOf(s.points) + bytesOf(s.assign) + bytesOf(s.dist) + bytesOf(s.given) +
           bytesOf(s.padded) + bytesOf(s.fresh) + bytesOf(s.sums) + bytesOf(s.counts) +
           bytesOf(s.denominators) + bytesOf(s.inertia) + bytesOf(s.skipped) +
           bytesOf(s.passCounts) + bytesOf(s.weights) + bytesOf(s.upper) + bytesOf(s.lower) +
           bytesOf(s.list) + bytesOf(s.moves) + bytesOf(s.listed) + s.nearest.deviceBytes() +
           s.pruning.deviceBytes() + bytesOf(s.origin);
}

std::vector<float> gaussianNeighbourhood(const float* positions, size_t g, float sigma) {
    if (!(sigma > 0.0f)) throw InputError("the SOM neighbourhood radius sigma must be > 0");
    const float inv2s2 = 1.0f / (2.0f * sigma * sigma);
    std::vector<float> h(g * g);
    for (size_t j = 0; j < g; ++j)
        for (size_t c = 0; c < g; ++c) {
            const float dx = positions[2 * c] - positions[2 * j];
            const float dy = positions[2 * c + 1] - positions[2 * j + 1];
            h[j * g + c] = std::exp(-(dx * dx + dy * dy) * inv2s2);
        }
    return h;
}

}  // namespace sepal::cuda
