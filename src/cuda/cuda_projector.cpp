#include "cuda/cuda_projector.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/common/bytes.h"
#include "core/common/error.h"
#include "core/embedsom/projection_input.h"
#include "cuda/auto_kernel.h"
#include "cuda/cuda_error.h"
#include "cuda/device_buffer.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/kernel_registry.h"
#include "cuda/kernel_sample.h"
#include "cuda/list_cache.h"
#include "cuda/list_index.h"
#include "cuda/pair_rank.h"
#include "cuda/sm_split.h"
#include "cuda/tensor_landmarks.h"

namespace sepal::cuda {

namespace {

/// tensor+split: the k-NN's share of the multiprocessors. On the H100 at d = 64, g = 1024,
/// k = 32, 72 of 132 was the fastest of 64, 72 and 80 (GPU_NOTES.md).
constexpr double kSplitKnnShare = 0.55;
/// tensor+split: passes of the k-NN's persistent grid per chunk (1 to 4 measured; 2 was best).
constexpr size_t kSplitPassesPerChunk = 2;
/// tensor+split's events (SmSplit::event slots): on the k-NN partition, a chunk's lists are
/// written, and the k-NN's start and end (timing); on the projection partition, all is done.
enum SplitEvent { kListed = 0, kKnnStart = 1, kKnnEnd = 2, kProjected = 0 };
/// The CUDA backend's own limit on landmarks (16-bit landmark indices in the tensor kernels).
constexpr size_t kMaxLandmarks = 65535;

/// memcpy on all cores: one thread fills pinned memory at a few GB/s, far below the bus, and
/// the streaming path copies every point into a pinned buffer before its transfer.
void parallelCopy(void* dst, const void* src, size_t bytes) {
    constexpr size_t kBlock = size_t(1) << 20;
    const auto blocks = static_cast<long long>((bytes + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static) if (blocks > 1)
    for (long long i = 0; i < blocks; ++i) {
        const size_t first = size_t(i) * kBlock;
        std::memcpy(static_cast<char*>(dst) + first, static_cast<const char*>(src) + first,
                    std::min(kBlock, bytes - first));
    }
}

/// Cells per chunk of the streamed path: about 32 MiB of rows (2^16 to 2^21 cells: 8 MiB at d 1,
/// 256 MiB at d 1000), so that the cores fill one chunk's pinned buffer while the last one
/// crosses the bus and is projected. At the headline (2^20 x 32 on an H200) one chunk of every
/// point took 6.8-7.9 ms end to end, chunks of 2^17 and 2^18 points 4.8-6.0 ms, and chunks of
/// 2^15 9.0-9.5 ms (launches and short transfers).
size_t streamChunkFor(size_t d) {
    constexpr size_t kChunkBytes = size_t(32) << 20;
    const size_t cells = kChunkBytes / (std::max<size_t>(d, 1) * sizeof(float));
    return std::clamp<size_t>(cells, size_t(1) << 16, size_t(1) << 21);
}

/// Cells per chunk of a range (projectRangeToDevice): k-NN lists of at most 256 MB, at least
/// 2^16 cells.
size_t rangeChunkFor(size_t listLength) {
    constexpr size_t kListBytes = size_t(256) << 20;
    const size_t perCell = std::max<size_t>(listLength, 1) * (sizeof(float) + sizeof(uint32_t));
    return std::max<size_t>(kListBytes / perCell, size_t(1) << 16);
}

}  // namespace

struct CudaProjector::State {
    const KernelEntry* requested = nullptr;  // null: auto
    const KernelEntry* last = nullptr;       // the kernel of the last run
    AutoPick autoPick;                       // auto's last choice and how it was made
    // The cells of the whole call when it is streamed in chunks: auto chooses every chunk's
    // kernel by the call's class, so that one projection runs one kernel (0: a.n decides).
    size_t classCells = 0;
    /// Sets classCells for one call, and clears it after.
    struct CallClass {
        size_t& cells;
        CallClass(size_t& c, size_t n) : cells(c) { cells = n; }
        ~CallClass() { cells = 0; }
        CallClass(const CallClass&) = delete;
        CallClass& operator=(const CallClass&) = delete;
    };
    size_t streamChunk = 0;  // cells per streamed chunk (0: streamChunkFor decides)
    cudaStream_t streams[2] = {nullptr, nullptr};
    cudaEvent_t events[3] = {nullptr, nullptr, nullptr};
    cudaEvent_t forkEvent = nullptr;  // the split pipeline's start, waited on by both partitions
    bool timing = false;
    bool splitRan = false;  // the last run went through runSplit (its k-NN time is partition 0's)
    // The k-NN and projection partitions, made on first use; splitWhyNot says why there are none.
    std::unique_ptr<SmSplit> split;
    bool splitTried = false;
    std::string splitWhyNot;
    PhaseTimes times;
    size_t statsPoints = 0;  // points behind tensorStatsHost (0: no statistics)

    // The model as last uploaded (compared by content, so stale versions cannot slip through).
    std::vector<float> high, low;
    size_t g = 0, d = 0;
    int stride = 0;
    bool haveModel = false;
    DeviceBuffer<float> landmarks, lowDev, staging;
    TensorLandmarkBuffers tensorLandmarks;
    bool tensorStale = true;     // prepared only when a tensor kernel runs, after `high` changed
    bool tensorShuffled = true;  // the order of the last upload (tensor: shuffled; resident: not)
    // Pair terms depend on both spaces and on adjust: rebuilt when any of them changes.
    DeviceBuffer<float2> pairTerms;
    bool pairsStale = true;
    float pairsAdjust = 0;
    // The same terms by the landmarks' locality rank, for the list projection (pair_rank.h),
    // built on first use after the pair terms changed (byRankFresh); the ranks when the
    // data-space landmarks changed (ranksStale), not on a drag.
    DeviceBuffer<float2> pairTermsByRank;
    DeviceBuffer<uint16_t> landmarkRank;
    std::vector<uint16_t> rankHost;
    bool byRankFresh = false, ranksStale = true;

    // Resident points; `out` holds their positions when the neighbour cache placed them.
    const float* residentHost = nullptr;
    size_t n = 0, dim = 0;
    DeviceBuffer<float> points, out;
    DeviceListCache cache;
    bool cacheOn = false;      // keepNeighbourLists(true)
    bool cachedRun = false;    // the last projection went through the cache
    size_t lastProjected = 0;  // cells the last projection computed

    // Work space: k-NN lists of the split kernels, counters, streamed chunks.
    DeviceBuffer<uint32_t> knnIdx[2];
    DeviceBuffer<float> knnDist[2];
    DeviceBuffer<unsigned long long> counters[2], tensorStats;
    // The table projection's queue of ill-conditioned cells (ProjectionArgs::deferred).
    DeviceBuffer<uint32_t> deferred[2];
    DeviceBuffer<unsigned long long> deferredCount[2];
    // Its queue of cells that need the exact forms (ProjectionArgs::rare).
    DeviceBuffer<uint32_t> rare[2];
    DeviceBuffer<unsigned long long> rareCount[2];
    PinnedBuffer<unsigned long long> tensorStatsHost;
    PinnedBuffer<unsigned long long> countersHost[2];
    PinnedBuffer<unsigned long long> deferredHost;  // recordDeferred's copies of the queues' counts
    DeviceBuffer<uint32_t> nonFinite[2], scratchIdx[2];
    DeviceBuffer<float> scratch[2];
    PinnedBuffer<float> stageIn[2], stageOut[2];
    DeviceBuffer<float> chunkRaw[2], chunkPoints[2], chunkOut[2];
    // Streamed chunks' nearest landmarks (projectFindingNearest).
    DeviceBuffer<uint32_t> chunkNearest[2];
    PinnedBuffer<uint32_t> stageNearest[2];

    ~State() {
        for (auto s : streams)
            if (s) cudaStreamDestroy(s);
        for (auto e : events)
            if (e) cudaEventDestroy(e);
        if (forkEvent) cudaEventDestroy(forkEvent);
    }

    /// The CPU backend's checks of the model, the shapes and the parameters, with its messages
    /// and its k (core's validateParams and resolveK), then the CUDA backend's own limits (the
    /// landmarks, the requested kernel's shapes): all before any CUDA work. Returns topn, topnn
    /// and boost.
    ScoreSetup checkInput(const float* points, size_t n, size_t dim, const LandmarkModel& model,
                          const EmbedParams& params, const float* out) const {
        const ScoreSetup setup = checkProjectionInput(points, n, dim, model, params, out);
        if (model.count() > kMaxLandmarks)
            throw InputError("the CUDA backend takes at most " + std::to_string(kMaxLandmarks) +
                             " landmarks (the model has " + std::to_string(model.count()) +
                             "); use --backend cpu");
        ProjectionArgs shape;
        shape.n = n;
        shape.dim = int(dim);
        shape.stride = paddedDim(dim);
        shape.g = int(model.count());
        shape.topn = setup.topn;
        shape.topnn = setup.topnn;
        chooseKernel(requested, shapeOf(shape));
        return setup;
    }

    /// Uploads landmarks, positions and pair constants when their content or shape changed.
    /// The model has passed checkInput for points of pointDim dimensions.
    void prepareModel(const LandmarkModel& model, size_t pointDim) {
        const size_t mg = model.count();
        const int s = paddedDim(pointDim);
        const bool highSame =
            haveModel && g == mg && d == pointDim && stride == s &&
            high.size() == model.high.size() &&
            std::memcmp(high.data(), model.high.data(), high.size() * sizeof(float)) == 0;
        const bool lowSame =
            haveModel && g == mg && low.size() == model.low.size() &&
            std::memcmp(low.data(), model.low.data(), low.size() * sizeof(float)) == 0;
        if (!highSame) {
            landmarks.reserve(mg * s);
            staging.reserve(mg * pointDim);
            SEPAL_CUDA_CHECK(cudaMemcpyAsync(staging.get(), model.high.data(),
                                             mg * pointDim * sizeof(float), cudaMemcpyHostToDevice,
                                             streams[0]));
            launchPadRows(staging.get(), mg, int(pointDim), landmarks.get(), s, streams[0]);
            high = model.high;
            tensorStale = true;
            ranksStale = true;
        }
        if (!lowSame) {
            lowDev.reserve(mg * 2);
            SEPAL_CUDA_CHECK(cudaMemcpyAsync(lowDev.get(), model.low.data(), mg * 2 * sizeof(float),
                                             cudaMemcpyHostToDevice, streams[0]));
            low = model.low;
        }
        // The host copies above are read by the asynchronous copies: wait before they change.
        if (!highSame || !lowSame) {
            SEPAL_CUDA_CHECK(cudaStreamSynchronize(streams[0]));
            pairsStale = true;
        }
        g = mg;
        d = pointDim;
        stride = s;
        haveModel = true;
    }

    /// The arguments every launch shares, after checkInput and prepareModel.
    ProjectionArgs baseArgs(const EmbedParams& params, const ScoreSetup& setup) {
        ProjectionArgs a;
        a.topn = setup.topn;
        a.topnn = setup.topnn;
        a.stride = stride;
        a.dim = int(d);
        a.landmarks = landmarks.get();
        a.g = int(g);
        a.low = lowDev.get();
        if (pairsStale || params.adjust != pairsAdjust) {
            pairTerms.reserve(pairTableSize(g));
            launchPairTerms(landmarks.get(), lowDev.get(), int(g), stride, params.adjust,
                            pairTerms.get(), streams[0]);
            SEPAL_CUDA_CHECK(cudaStreamSynchronize(streams[0]));
            pairsStale = false;
            pairsAdjust = params.adjust;
            byRankFresh = false;
        }
        a.pairTerms = pairTerms.get();
        a.boost = setup.boost;
        a.adjust = params.adjust;
        return a;
    }

    /// Gives the launch the pair terms by rank (built now when the pair terms or the landmarks
    /// changed) where the kernel's projection reads the table from global memory and the table
    /// fits (pair_rank.h); else leaves the triangular table alone.
    void usePairTermsByRank(ProjectionArgs& a, const KernelEntry& kernel) {
        if (!pairTermsByRankApply(g) || !projectsThroughLists(kernel, shapeOf(a))) return;
        if (!byRankFresh || ranksStale) {
            // The dense copy is only a faster layout: where the device has no room for it (up
            // to 128 MB at g 4096), the projection reads the triangular table.
            try {
                landmarkRank.reserve(g);
                pairTermsByRank.reserve(g * g);
            } catch (const CudaError& e) {
                if (e.code() != cudaErrorMemoryAllocation) throw;
                pairTermsByRank.release();
                return;
            }
            if (ranksStale) {
                rankHost = localityRanks(high.data(), g, d);
                SEPAL_CUDA_CHECK(cudaMemcpyAsync(landmarkRank.get(), rankHost.data(),
                                                 g * sizeof(uint16_t), cudaMemcpyHostToDevice,
                                                 streams[0]));
                ranksStale = false;
            }
            launchPairTermsByRank(pairTerms.get(), landmarkRank.get(), int(g),
                                  pairTermsByRank.get(), streams[0]);
            // As the pair terms: ready for every stream before any launch reads it.
            SEPAL_CUDA_CHECK(cudaStreamSynchronize(streams[0]));
            byRankFresh = true;
        }
        a.pairTermsByRank = pairTermsByRank.get();
        a.landmarkRank = landmarkRank.get();
    }

    /// The landmark copy a tensor-core k-NN reads, uploaded when the landmarks or the order
    /// changed.
    TensorLandmarks prepareTensor(const KernelLaunch& launch) {
        const bool shuffled = launch.tensor == TensorOrder::Shuffled;
        if (tensorStale || tensorShuffled != shuffled) {
            tensorLandmarks.upload(high.data(), g, d, stride, kTensorPadding, streams[0], shuffled);
            SEPAL_CUDA_CHECK(cudaStreamSynchronize(streams[0]));
            tensorStale = false;
            tensorShuffled = shuffled;
        }
        return tensorLandmarks.view();
    }

    /// Gives the launch slot b's queue of ill-conditioned cells (table and list projections),
    /// its count zeroed on `stream` (kernels that queue nothing leave it at 0).
    void useDeferredQueue(ProjectionArgs& a, int b, cudaStream_t stream) {
        a.deferredCapacity = std::max(kDeferredCapacity, a.n / 16);
        deferred[b].reserve(a.deferredCapacity);
        deferredCount[b].reserve(1);
        a.deferred = deferred[b].get();
        a.deferredCount = deferredCount[b].get();
        SEPAL_CUDA_CHECK(cudaMemsetAsync(a.deferredCount, 0, sizeof(unsigned long long), stream));
    }

    /// Gives the launch slot b's queue of cells that need the exact forms (the table
    /// projection's), its count zeroed on `stream`: room for as many cells as the deferred
    /// queue's (the rest are placed inline, as without a queue).
    void useRareQueue(ProjectionArgs& a, int b, cudaStream_t stream) {
        a.rareCapacity = std::min(a.n, std::max(kDeferredCapacity, a.n / 16));
        rare[b].reserve(std::max<size_t>(a.rareCapacity, 1));
        rareCount[b].reserve(1);
        a.rare = rare[b].get();
        a.rareCount = rareCount[b].get();
        SEPAL_CUDA_CHECK(cudaMemsetAsync(a.rareCount, 0, sizeof(unsigned long long), stream));
    }

    /// With timing on: copies slot b's counts of queued cells (ill-conditioned, and needing the
    /// exact forms) for readTimes (after the launches on `stream`).
    void recordDeferred(int b, cudaStream_t stream) {
        if (!timing) return;
        deferredHost.reserve(2);
        SEPAL_CUDA_CHECK(cudaMemcpyAsync(deferredHost.get(), deferredCount[b].get(),
                                         sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                         stream));
        SEPAL_CUDA_CHECK(cudaMemcpyAsync(deferredHost.get() + 1, rareCount[b].get(),
                                         sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                         stream));
    }

    /// The kernel for a launch with these arguments: the one named, or auto's (measured once
    /// per shape class on this GPU, a close call timed again on these cells: auto_kernel.h).
    const KernelEntry& choose(const ProjectionArgs& a) {
        KernelShape shape = shapeOf(a);
        if (requested) return chooseKernel(requested, shape);
        shape.n = std::max(shape.n, classCells);
        // Only a launch of the whole call's cells offers them to be timed on; a chunk of a range
        // or a stream (mid-frame, or fewer cells than its class's) offers none, and takes the
        // choice its call's cells made.
        OwnCells own;
        if (haveModel && size_t(a.dim) == d) {
            own.count = a.n >= classCells ? a.n : 0;
            own.take = [&](size_t count) { return ownCells(a, count); };
        }
        autoPick = chooseAutoKernel(shape, a.adjust, processKernelCache(), own);
        return *autoPick.kernel;
    }

    /// The first `count` (at most a.n) cells of a launch's points and the model last uploaded,
    /// copied to the host for auto to time two kernels on.
    KernelSample ownCells(const ProjectionArgs& a, size_t count) const {
        count = std::min(count, a.n);
        KernelSample cells;
        cells.points.resize(count * d);
        SEPAL_CUDA_CHECK(cudaMemcpy2D(cells.points.data(), d * sizeof(float), a.points,
                                      size_t(a.stride) * sizeof(float), d * sizeof(float), count,
                                      cudaMemcpyDeviceToHost));
        cells.model.resize(g, d);
        cells.model.high = high;
        cells.model.low = low;
        cells.model.touch();
        return cells;
    }

    /// Runs the chosen kernel(s) on a.points (a.n points) into a.out, on `stream` with slot b's
    /// work space and counters (read back into countersHost[b]). knnOnlyPhase: stop after the
    /// k-NN. byRank: a list projection may read the pair terms by rank (built before the timed
    /// region, as the other copies of the model).
    void run(ProjectionArgs a, int b, cudaStream_t stream, bool knnOnlyPhase = false,
             bool byRank = true) {
        const KernelEntry* kernel = &choose(a);
        if (kernel->launch.sideBySide && !haveSplit())
            kernel = &findKernel(kernel->launch.fallback);
        last = kernel;
        const KernelLaunch& launch = kernel->launch;
        splitRan = false;
        const bool tensor = launch.tensor != TensorOrder::None;
        if (tensor) a.tensor = prepareTensor(launch);
        counters[b].reserve(2);
        countersHost[b].reserve(2);
        nonFinite[b].reserve(a.n);
        scratch[b].reserve(size_t(kFixThreads) * a.topnn);
        scratchIdx[b].reserve(size_t(kFixThreads) * a.topnn);
        a.counters = counters[b].get();
        a.nonFinite = nonFinite[b].get();
        a.scratch = scratch[b].get();
        a.scratchIdx = scratchIdx[b].get();
        useDeferredQueue(a, b, stream);
        useRareQueue(a, b, stream);
        if (byRank && !knnOnlyPhase) usePairTermsByRank(a, *kernel);
        SEPAL_CUDA_CHECK(cudaMemsetAsync(a.counters, 0, 2 * sizeof(unsigned long long), stream));
        const bool oneKernel = launch.knn == nullptr;
        if (knnOnlyPhase || !oneKernel) {
            knnIdx[b].reserve(a.n * a.topnn);
            knnDist[b].reserve(a.n * a.topnn);
            a.knnIdx = knnIdx[b].get();
            a.knnDist = knnDist[b].get();
            a.kOut = a.topnn;
        }
        if (knnOnlyPhase) a.out = nullptr;
        if (timing && tensor) {
            tensorStats.reserve(2);
            tensorStatsHost.reserve(2);
            SEPAL_CUDA_CHECK(
                cudaMemsetAsync(tensorStats.get(), 0, 2 * sizeof(unsigned long long), stream));
            a.tensorStats = tensorStats.get();
        }
        if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(events[0], stream));
        if (oneKernel) {
            // The single kernel writes the lists instead of the result when a.out is null.
            if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(events[1], stream));
            launch.project(a, stream);
        } else if (launch.sideBySide && !knnOnlyPhase) {
            runSplit(a, stream, launch);
        } else {
            launch.knn(a, stream);
            if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(events[1], stream));
            if (!knnOnlyPhase) launch.project(a, stream);
        }
        launchPlaceNonFinite(a, stream);
        if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(events[2], stream));
        if (a.tensorStats)
            SEPAL_CUDA_CHECK(cudaMemcpyAsync(tensorStatsHost.get(), a.tensorStats,
                                             2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                             stream));
        statsPoints = a.tensorStats ? a.n : 0;
        recordDeferred(b, stream);
        SEPAL_CUDA_CHECK(cudaMemcpyAsync(countersHost[b].get(), a.counters,
                                         2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                         stream));
    }

    /// The kernel whose k-NN fills the neighbour cache (a tensor-core k-NN: it marks the cells
    /// with NaN or infinity for placeNonFinite) and whose projection places the cells from the
    /// lists, all or some: the chosen kernel when it has those two phases, else tensor+parts;
    /// null when neither takes the shape.
    const KernelEntry* cacheKernel(const ProjectionArgs& a) {
        if (a.topnn > kListMaxList) return nullptr;
        const KernelShape shape = shapeOf(a);
        const KernelEntry& chosen = choose(a);
        if (chosen.launch.knn && chosen.launch.tensor == TensorOrder::Indexed) return &chosen;
        const KernelEntry& parts = findKernel("tensor+parts");
        return parts.refusal(shape).empty() ? &parts : nullptr;
    }

    /// Projects the resident cells (a.n of them) into `out` through the neighbour cache: the
    /// lists found again when the data-space landmarks or k changed (then every cell projected
    /// from them), else only the cells a change of 2D positions touches re-projected from their
    /// kept lists, by the same projection kernel (a cell's position does not depend on the
    /// others', so the positions are those of a full recompute, bit for bit). False, with
    /// nothing launched, when the cache cannot serve (off, too large for the device, or a shape
    /// its k-NN cannot take).
    bool runCached(ProjectionArgs a, const LandmarkModel& model, const EmbedParams& params,
                   cudaStream_t stream) {
        if (!cacheOn) return false;
        const KernelEntry* kernel = cacheKernel(a);
        if (!kernel) {
            cache.decline("no neighbour cache for this shape (" + std::to_string(a.dim) +
                          " dimensions, k = " + std::to_string(a.topn) +
                          "): every change re-projects every cell");
            return false;
        }
        const bool fresh = !cache.holds(high, g, d, a.topn, a.topnn);
        if (fresh && !cache.reserve(g, a.topn, a.topnn)) return false;
        scratch[0].reserve(size_t(kFixThreads) * a.topnn);
        scratchIdx[0].reserve(size_t(kFixThreads) * a.topnn);
        a.scratch = scratch[0].get();
        a.scratchIdx = scratchIdx[0].get();
        useDeferredQueue(a, 0, stream);
        useRareQueue(a, 0, stream);
        a.out = out.get();
        a.counters = cache.counters();
        a.nonFinite = cache.nonFinite();
        a.knnIdx = cache.idx();
        a.knnDist = cache.dist();
        a.kOut = a.topnn;
        a.fellBack = cache.fellBack();
        // Every cell is projected from new lists: the pair terms by rank, built before the timed
        // region as run() builds them.
        if (fresh) usePairTermsByRank(a, *kernel);
        if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(events[0], stream));
        const KernelLaunch& launch = kernel->launch;
        DueCells due;
        splitRan = false;
        if (fresh) {
            a.tensor = prepareTensor(launch);
            SEPAL_CUDA_CHECK(
                cudaMemsetAsync(a.counters, 0, 2 * sizeof(unsigned long long), stream));
            SEPAL_CUDA_CHECK(cudaMemsetAsync(a.fellBack, 0, a.n, stream));
            // The k-NN marks and queues the cells with NaN or infinity.
            if (launch.sideBySide && haveSplit()) {
                runSplit(a, stream, launch);
            } else {
                launch.knn(a, stream);
                if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(events[1], stream));
                launch.project(a, stream);
            }
            due.all = true;
        } else {
            due = cache.due(model.low, params.smooth, params.adjust, stream);
            if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(events[1], stream));
            if (due.all) {
                // Known only now, so built inside the timed region.
                usePairTermsByRank(a, *kernel);
                launch.project(a, stream);
            } else if (due.count > 0) {
                // A drag's few cells keep the triangular table: the dense copy, built again
                // after every move of the 2D positions, would cost more than they save.
                ProjectionArgs part = a;
                part.rows = due.rows;
                part.n = due.count;
                launch.project(part, stream);
            }
        }
        lastProjected = due.all ? a.n : due.count;
        // The cells with NaN or infinity sit at their neighbours' 2D mean: they follow too.
        if (due.all || due.count > 0) launchPlaceNonFinite(a, stream);
        // The fallbacks among all cells, not only those just projected.
        SEPAL_CUDA_CHECK(cudaMemsetAsync(a.counters + 1, 0, sizeof(unsigned long long), stream));
        launchCountFlags(a.fellBack, a.n, a.counters + 1, stream);
        if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(events[2], stream));
        recordDeferred(0, stream);
        countersHost[0].reserve(2);
        SEPAL_CUDA_CHECK(cudaMemcpyAsync(countersHost[0].get(), a.counters,
                                         2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                         stream));
        if (fresh) cache.adopt(high, g, d, a.topn, a.topnn);
        cache.placed(model.low, params.smooth, params.adjust);
        last = kernel;
        cachedRun = true;
        statsPoints = 0;
        return true;
    }

    /// True when the device's multiprocessors are split for runSplit (made on first use; when
    /// they cannot be, splitWhyNot says why and tensor+split runs as tensor+parts).
    bool haveSplit() {
        if (!splitTried) {
            splitTried = true;
            split = SmSplit::create(kSplitKnnShare, &splitWhyNot);
        }
        return split != nullptr;
    }

    /// The parts k-NN and the list projection side by side on the split's two partitions, over
    /// chunks of points: chunk c is projected while chunk c + 1's neighbours are searched. The
    /// projection waits on L2 and the k-NN on its multiprocessors, so together they take less
    /// time than one after the other.
    void runSplit(const ProjectionArgs& a, cudaStream_t stream, const KernelLaunch& launch) {
        const cudaStream_t knnStream = split->stream(0), projectStream = split->stream(1);
        if (!forkEvent)
            SEPAL_CUDA_CHECK(cudaEventCreateWithFlags(&forkEvent, cudaEventDisableTiming));
        SEPAL_CUDA_CHECK(cudaEventRecord(forkEvent, stream));
        SEPAL_CUDA_CHECK(cudaStreamWaitEvent(knnStream, forkEvent, 0));
        SEPAL_CUDA_CHECK(cudaStreamWaitEvent(projectStream, forkEvent, 0));
        if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(split->event(0, kKnnStart), knnStream));
        const size_t step = kSplitPassesPerChunk * partsKnnPointsPerPass(split->multiprocessors(0));
        for (size_t begin = 0; begin < a.n; begin += step) {
            ProjectionArgs part = a;
            const size_t count = std::min(step, a.n - begin);
            part.points = a.points + begin * size_t(a.stride);
            part.n = count;
            part.out = a.out + 2 * begin;
            part.knnIdx = a.knnIdx + begin * size_t(a.kOut);
            part.knnDist = a.knnDist + begin * size_t(a.kOut);
            part.fellBack = a.fellBack ? a.fellBack + begin : nullptr;
            part.first = a.first + begin;
            part.multiprocessors = split->multiprocessors(0);
            launch.knn(part, knnStream);
            // A wait holds on to the record before it: one event serves every chunk.
            SEPAL_CUDA_CHECK(cudaEventRecord(split->event(0, kListed), knnStream));
            SEPAL_CUDA_CHECK(cudaStreamWaitEvent(projectStream, split->event(0, kListed), 0));
            part.multiprocessors = split->multiprocessors(1);
            launch.project(part, projectStream);
        }
        if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(split->event(0, kKnnEnd), knnStream));
        SEPAL_CUDA_CHECK(cudaEventRecord(split->event(1, kProjected), projectStream));
        SEPAL_CUDA_CHECK(cudaStreamWaitEvent(stream, split->event(1, kProjected), 0));
        if (timing) SEPAL_CUDA_CHECK(cudaEventRecord(events[1], stream));
        splitRan = true;
    }

    /// The arguments of a projection of the resident points into deviceOut (every cell; a
    /// range narrows them), the model uploaded; `what` names the call in errors.
    ProjectionArgs residentArgs(const LandmarkModel& model, const EmbedParams& params,
                                const float* deviceOut, const char* what);

    /// Projects the resident cells of `a` (all or a range) without the neighbour cache. byRank:
    /// the list projection may read the pair terms by rank (a range does not: it is a training
    /// frame's slice, a 64th of the cells under landmarks that move every frame, where the ranks'
    /// 0.25 ms at g 1024 cost more than the slice's projection saves: GPU_NOTES.md).
    void runUncached(const ProjectionArgs& a, bool byRank = true) {
        cache.unsettle();  // `out` may now hold other positions than the cache placed
        cachedRun = false;
        lastProjected = a.n;
        run(a, 0, streams[0], false, byRank);
    }

    /// Waits for a resident projection and reports its counters (and times).
    ProjectionReport finishResident() {
        SEPAL_CUDA_CHECK(cudaStreamSynchronize(streams[0]));
        ProjectionReport r;
        collect(0, r);
        readTimes();
        return r;
    }

    /// Adds slot b's counters (after its stream has finished) to the report.
    void collect(int b, ProjectionReport& r) const {
        r.nonFinitePoints += countersHost[b].get()[0];
        r.degeneratePoints += countersHost[b].get()[1];
    }

    void readTimes() {
        if (!timing) return;
        SEPAL_CUDA_CHECK(cudaEventSynchronize(events[2]));
        SEPAL_CUDA_CHECK(cudaEventElapsedTime(&times.knnMs, events[0], events[1]));
        SEPAL_CUDA_CHECK(cudaEventElapsedTime(&times.projectMs, events[1], events[2]));
        SEPAL_CUDA_CHECK(cudaEventElapsedTime(&times.totalMs, events[0], events[2]));
        if (splitRan) {
            // Side by side: the k-NN partition's busy time, and the rest of the total.
            SEPAL_CUDA_CHECK(cudaEventElapsedTime(&times.knnMs, split->event(0, kKnnStart),
                                                  split->event(0, kKnnEnd)));
            times.projectMs = times.totalMs - times.knnMs;
        }
        times.candidatesPerPoint =
            statsPoints ? double(tensorStatsHost.get()[0]) / double(statsPoints) : 0.0;
        times.exactScans = statsPoints ? tensorStatsHost.get()[1] : 0;
        times.deferredCells = deferredHost.get() ? deferredHost.get()[0] : 0;
        times.exactFormCells = deferredHost.get() ? deferredHost.get()[1] : 0;
    }
};

CudaProjector::CudaProjector(const std::string& kernel) : m_state(std::make_unique<State>()) {
    State& s = *m_state;
    s.requested = kernel == "auto" ? nullptr : &findKernel(kernel);
    for (auto& stream : s.streams)
        SEPAL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (auto& e : s.events) SEPAL_CUDA_CHECK(cudaEventCreate(&e));
}

CudaProjector::~CudaProjector() = default;

std::string CudaProjector::name() const {
    return "cuda";
}

void CudaProjector::setPoints(const float* host, size_t n, size_t d) {
    State& s = *m_state;
    if (d == 0) throw InputError("points must have at least one dimension");
    const int stride = paddedDim(d);
    s.residentHost = nullptr;
    s.n = 0;
    s.points.reserve(std::max<size_t>(n * stride, 1));
    s.out.reserve(std::max<size_t>(n * 2, 2));
    if (n > 0) {
        if (size_t(stride) == d) {
            SEPAL_CUDA_CHECK(
                cudaMemcpy(s.points.get(), host, n * d * sizeof(float), cudaMemcpyHostToDevice));
        } else {
            DeviceBuffer<float> raw;
            raw.reserve(n * d);
            SEPAL_CUDA_CHECK(
                cudaMemcpy(raw.get(), host, n * d * sizeof(float), cudaMemcpyHostToDevice));
            launchPadRows(raw.get(), n, int(d), s.points.get(), stride, s.streams[0]);
            SEPAL_CUDA_CHECK(cudaStreamSynchronize(s.streams[0]));
        }
    }
    s.residentHost = host;
    s.n = n;
    s.dim = d;
    s.cache.reset(n);
}

void CudaProjector::clearPoints() {
    m_state->points.release();
    m_state->out.release();
    m_state->residentHost = nullptr;
    m_state->n = 0;
    m_state->cache.reset(0);
}

size_t CudaProjector::residentCount() const {
    return m_state->n;
}

const float* CudaProjector::residentRows(const float* host, size_t n, size_t d) const {
    const State& s = *m_state;
    return host != nullptr && host == s.residentHost && n == s.n && d == s.dim && n > 0
               ? s.points.get()
               : nullptr;
}

size_t CudaProjector::residentBytes(size_t n, size_t d) const {
    const size_t stride = size_t(paddedDim(d));
    return n * (stride + (stride != d ? d : 0) + 3) * sizeof(float);
}

size_t CudaProjector::availableBytes() const {
    size_t freeBytes = 0, total = 0;
    if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess) return 0;
    const State& s = *m_state;
    return freeBytes + (s.points.capacity() + s.out.capacity() + s.nonFinite[0].capacity()) * 4 +
           s.cache.bytes();
}

ProjectionArgs CudaProjector::State::residentArgs(const LandmarkModel& model,
                                                  const EmbedParams& params, const float* deviceOut,
                                                  const char* what) {
    if (dim == 0) throw InputError("no points on the device: call setPoints() first");
    // The points are on the device already: no host pointers to check (n = 0).
    const ScoreSetup setup = checkInput(nullptr, 0, dim, model, params, nullptr);
    if (n > 0 && !deviceOut) throw InputError(std::string(what) + " needs an output buffer");
    prepareModel(model, dim);
    ProjectionArgs a = baseArgs(params, setup);
    a.points = points.get();
    a.n = n;
    return a;
}

ProjectionReport CudaProjector::projectToDevice(const LandmarkModel& model,
                                                const EmbedParams& params, float* deviceOut) {
    State& s = *m_state;
    ProjectionArgs a = s.residentArgs(model, params, deviceOut, "projectToDevice");
    if (s.n == 0) return {};
    if (s.runCached(a, model, params, s.streams[0])) {
        if (deviceOut != s.out.get())
            SEPAL_CUDA_CHECK(cudaMemcpyAsync(deviceOut, s.out.get(), s.n * 2 * sizeof(float),
                                             cudaMemcpyDeviceToDevice, s.streams[0]));
    } else {
        a.out = deviceOut;
        s.runUncached(a);
    }
    return s.finishResident();
}

ProjectionReport CudaProjector::projectRangeToDevice(const LandmarkModel& model,
                                                     const EmbedParams& params, size_t begin,
                                                     size_t count, float* deviceOut) {
    State& s = *m_state;
    if (begin > s.n || count > s.n - begin)
        throw InputError("cells " + std::to_string(begin) + " to " + std::to_string(begin + count) +
                         " asked of " + std::to_string(s.n) + " resident cells");
    ProjectionArgs a = s.residentArgs(model, params, deviceOut, "projectRangeToDevice");
    if (count == 0) return {};
    // A range is a chunk of the resident cells, as the streamed path projects its chunks: the
    // kernels' queues and lists are the chunk's own, and the kernel is the one auto chooses for
    // every resident cell (a short range must not take another, or be measured mid-frame).
    const State::CallClass callClass(s.classCells, s.n);
    // The range's k-NN lists are its own, outside the neighbour cache's memory plan (a slice
    // the frame's budget pays for may be long: a 16th of 10^8 cells at k 16 would take 0.85 GB
    // beside a full cache): a long range goes in chunks of bounded lists, one after another.
    const size_t chunk = s.streamChunk ? s.streamChunk : rangeChunkFor(size_t(a.topnn));
    ProjectionReport report;
    PhaseTimes sum;  // the chunks' times, when timing
    double candidates = 0;
    for (size_t first = 0; first < count; first += chunk) {
        ProjectionArgs part = a;
        part.points += (begin + first) * size_t(a.stride);
        part.n = std::min(chunk, count - first);
        part.out = deviceOut + 2 * (begin + first);
        s.runUncached(part, false);
        const ProjectionReport r = s.finishResident();
        report.nonFinitePoints += r.nonFinitePoints;
        report.degeneratePoints += r.degeneratePoints;
        if (!s.timing) continue;
        sum.knnMs += s.times.knnMs;
        sum.projectMs += s.times.projectMs;
        sum.totalMs += s.times.totalMs;
        sum.exactScans += s.times.exactScans;
        sum.deferredCells += s.times.deferredCells;
        sum.exactFormCells += s.times.exactFormCells;
        candidates += s.times.candidatesPerPoint * double(part.n);
    }
    s.lastProjected = count;
    if (s.timing) {
        sum.candidatesPerPoint = candidates / double(count);
        s.times = sum;
    }
    return report;
}

float* CudaProjector::ownPositions() {
    return m_state->out.get();
}

ProjectionReport CudaProjector::projectToHost(const LandmarkModel& model, const EmbedParams& params,
                                              float* hostOut) {
    State& s = *m_state;
    ProjectionReport r = projectToDevice(model, params, s.out.get());
    if (s.n > 0)
        SEPAL_CUDA_CHECK(
            cudaMemcpy(hostOut, s.out.get(), s.n * 2 * sizeof(float), cudaMemcpyDeviceToHost));
    return r;
}

void CudaProjector::knnOnly(const LandmarkModel& model, const EmbedParams& params) {
    State& s = *m_state;
    if (s.dim == 0) throw InputError("no points on the device: call setPoints() first");
    const ScoreSetup setup = s.checkInput(nullptr, 0, s.dim, model, params, nullptr);
    s.prepareModel(model, s.dim);
    ProjectionArgs a = s.baseArgs(params, setup);
    if (s.n == 0) return;
    a.points = s.points.get();
    a.n = s.n;
    s.run(a, 0, s.streams[0], true);
    SEPAL_CUDA_CHECK(cudaStreamSynchronize(s.streams[0]));
    s.readTimes();
}

ProjectionReport CudaProjector::project(const float* points, size_t n, size_t d,
                                        const LandmarkModel& model, const EmbedParams& params,
                                        float* out) {
    bool found = false;
    return projectFindingNearest(points, n, d, model, params, out, nullptr, found);
}

ProjectionReport CudaProjector::projectFindingNearest(const float* points, size_t n, size_t d,
                                                      const LandmarkModel& model,
                                                      const EmbedParams& params, float* out,
                                                      uint32_t* nearest, bool& found) {
    State& s = *m_state;
    found = false;
    const ScoreSetup setup = s.checkInput(points, n, d, model, params, out);
    if (points == s.residentHost && n == s.n && d == s.dim && s.dim > 0)
        return projectToHost(model, params, out);
    s.prepareModel(model, d);
    const ProjectionArgs base = s.baseArgs(params, setup);
    if (n == 0) return {};

    // Chunks small enough for two in flight beside everything else on the device.
    size_t freeBytes = 0, total = 0;
    SEPAL_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &total));
    const size_t perPoint = (d + s.stride + 2 + 2 * size_t(base.topnn)) * sizeof(float);
    const size_t budget = freeBytes > (size_t(512) << 20) ? freeBytes / 4 : freeBytes / 8;
    const size_t wanted = s.streamChunk ? s.streamChunk : streamChunkFor(d);
    const size_t chunk = std::max<size_t>(1024, std::min<size_t>({n, wanted, budget / perPoint}));
    for (int b = 0; b < 2; ++b) {
        s.stageIn[b].reserve(chunk * d);
        s.stageOut[b].reserve(chunk * 2);
        s.chunkRaw[b].reserve(chunk * d);
        if (size_t(s.stride) != d) s.chunkPoints[b].reserve(chunk * s.stride);
        s.chunkOut[b].reserve(chunk * 2);
        if (nearest) {
            s.chunkNearest[b].reserve(chunk);
            s.stageNearest[b].reserve(chunk);
        }
    }
    ProjectionReport report;
    const size_t chunks = (n + chunk - 1) / chunk;
    // Every chunk takes the kernel of the whole call's class (the last, short chunk too).
    const State::CallClass callClass(s.classCells, n);
    // Whether every chunk's kernel kept its lists (a one-pass kernel keeps none: the caller
    // searches then).
    bool listed[2] = {false, false};
    bool allListed = nearest != nullptr;
    auto drain = [&](size_t c) {
        const int b = int(c % 2);
        const size_t first = c * chunk, count = std::min(chunk, n - first);
        SEPAL_CUDA_CHECK(cudaStreamSynchronize(s.streams[b]));
        s.collect(b, report);
        parallelCopy(out + first * 2, s.stageOut[b].get(), count * 2 * sizeof(float));
        if (listed[b]) {
            const uint32_t* from = s.stageNearest[b].get();
            for (size_t i = 0; i < count; ++i)
                if (from[i] != kNoNearest) nearest[first + i] = from[i];  // NaN cells: as they were
        }
    };
    for (size_t c = 0; c < chunks; ++c) {
        const int b = int(c % 2);
        if (c >= 2) drain(c - 2);
        const size_t first = c * chunk, count = std::min(chunk, n - first);
        parallelCopy(s.stageIn[b].get(), points + first * d, count * d * sizeof(float));
        SEPAL_CUDA_CHECK(cudaMemcpyAsync(s.chunkRaw[b].get(), s.stageIn[b].get(),
                                         count * d * sizeof(float), cudaMemcpyHostToDevice,
                                         s.streams[b]));
        const float* devPoints = s.chunkRaw[b].get();
        if (size_t(s.stride) != d) {
            launchPadRows(s.chunkRaw[b].get(), count, int(d), s.chunkPoints[b].get(), s.stride,
                          s.streams[b]);
            devPoints = s.chunkPoints[b].get();
        }
        ProjectionArgs a = base;
        a.points = devPoints;
        a.n = count;
        a.out = s.chunkOut[b].get();
        s.run(a, b, s.streams[b]);
        SEPAL_CUDA_CHECK(cudaMemcpyAsync(s.stageOut[b].get(), s.chunkOut[b].get(),
                                         count * 2 * sizeof(float), cudaMemcpyDeviceToHost,
                                         s.streams[b]));
        // The k-NN's lists are sorted with ties to the lower index, so their first entries are
        // NearestSearch's nearest landmarks.
        listed[b] = nearest && s.last->launch.knn != nullptr;
        allListed = allListed && listed[b];
        if (listed[b]) {
            launchFirstOfLists(s.knnIdx[b].get(), base.topnn, count, s.nonFinite[b].get(),
                               s.counters[b].get(), s.chunkNearest[b].get(), s.streams[b]);
            SEPAL_CUDA_CHECK(cudaMemcpyAsync(s.stageNearest[b].get(), s.chunkNearest[b].get(),
                                             count * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                             s.streams[b]));
        }
    }
    for (size_t c = chunks >= 2 ? chunks - 2 : 0; c < chunks; ++c) drain(c);
    found = allListed;
    return report;
}

std::string CudaProjector::lastKernel() const {
    const State& s = *m_state;
    if (!s.last) return "";
    // How auto chose, when the kernel that ran is its choice (not a fallback of it).
    const std::string how =
        !s.requested && s.last == s.autoPick.kernel ? " (auto: " + s.autoPick.how.source + ")" : "";
    return s.last->name + how + (s.cachedRun ? ", cached lists" : "");
}

std::string CudaProjector::lastKernelName() const {
    return m_state->last ? m_state->last->name : "";
}

AutoChoice CudaProjector::lastAutoChoice() const {
    return m_state->requested ? AutoChoice{} : m_state->autoPick.how;
}

size_t CudaProjector::lastProjected() const {
    return m_state->lastProjected;
}

std::pair<size_t, std::string> CudaProjector::cacheState() const {
    return {m_state->cache.refusal().empty() ? m_state->cache.bytes() : 0,
            m_state->cache.refusal()};
}

void CudaProjector::keepNeighbourLists(bool on) {
    State& s = *m_state;
    // SEPAL_NEIGHBOUR_CACHE_MB as on the CPU (0: off), else whatever the device has free.
    if (on && !s.cacheOn) s.cache.setLimit(neighbourCacheLimitFromEnvironment().value_or(SIZE_MAX));
    if (!on) s.cache.reset(s.n);
    s.cacheOn = on;
}

void CudaProjector::setNeighbourCacheLimit(size_t bytes) {
    m_state->cache.setLimit(bytes);
}

std::string CudaProjector::splitUnavailable() const {
    return m_state->splitWhyNot;
}

void CudaProjector::setStreamChunk(size_t cells) {
    m_state->streamChunk = cells;
}

PhaseTimes CudaProjector::lastTimes() const {
    return m_state->times;
}

void CudaProjector::enableTiming(bool on) {
    m_state->timing = on;
}

double CudaProjector::lastDeviceMs() const {
    return m_state->timing ? m_state->times.totalMs : 0.0;
}

}  // namespace sepal::cuda
