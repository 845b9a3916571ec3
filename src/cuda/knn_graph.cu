// The exact k-NN graph of every point on the GPU: candidates, then an exact re-rank in double
// precision, summed in the CPU's order, so the graph equals the CPU's. The candidates come from
// the tensor cores where the metric has a dot-product form and the rows 8 to 64 columns
// (split_knn.h), otherwise from single-precision difference-form keys over tiles of references
// in shared memory. A query whose candidates cannot be proven to hold its k nearest (an error
// bound says a point left out might be nearer) is taken again by the difference form, and if
// still unproven, exactly on the CPU. Batches of queries are dealt to the devices in turn, one
// host thread each, every device holding all the points. A whole euclidean graph of many points
// first gathers them into k-means parts (knn_parts.h), so that a block of queries leaves out the
// parts it cannot reach: the batches are then runs of the layout's positions.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/common/error.h"
#include "core/common/stopwatch.h"
#include "core/knn/knn_graph.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_error.h"
#include "cuda/device_buffer.h"
#include "cuda/knn_parts.h"
#include "cuda/split_knn.h"
#include "cuda/tile_keys.cuh"

namespace sepal::cuda {
namespace {

constexpr int kMargin = 8;                  // candidates kept beyond k
constexpr size_t kBatch = size_t(1) << 18;  // queries per launch (bounds the candidate buffers)

/// Offers reference `ref` at key s to a query's C best (ascending; ties keep the earlier).
template <int C>
__device__ __forceinline__ void offer(float (&key)[C], uint32_t (&id)[C], int& count, float& worst,
                                      float s, int ref) {
    if (!(s < worst)) return;
    insertAscending<C>(key, id, count, s, uint32_t(ref));
    if (count == C) worst = key[C - 1];
}

/// What the difference-form candidate kernel reads and writes for a batch of queries: q0 + i,
/// or list[i] where a list is given (i < qn).
struct CandidateArgs {
    const float* rows;      // n x d (unit rows for cosine and pearson)
    const uint8_t* usable;  // n: 1 where every value is finite
    int n, d, q0, qn;       // points, columns, the batch
    const uint32_t* list;   // null: queries q0 .. q0 + qn - 1
    double relError;        // relativeKeyError(d)
    double absError;        // absoluteKeyError(d)
    float* key;             // qn x C single-precision keys, ascending
    uint32_t* idx;          // qn x C references
    int* count;             // qn: candidates kept
    double* leftOut;        // qn: the least exact key of a point left out
};

/// Per query of the batch: its C best references by the single-precision key, ascending.
template <Sum S, int C, int W>
__global__ void candidateKernel(const CandidateArgs a) {
    const int qi = blockIdx.x * kTileQueries + threadIdx.x;
    const bool active = qi < a.qn;
    const int q = !active ? 0 : a.list ? int(a.list[qi]) : a.q0 + qi;
    float key[C];
    uint32_t id[C];
    int count = 0;
    float worst = INFINITY;
    scanReferences<S, W>(a.rows, a.usable, a.n, a.d, q, active,
                         [&](int ref, float s) { offer<C>(key, id, count, worst, s, ref); });
    if (!active) return;
    for (int j = 0; j < count; ++j) {
        a.key[size_t(qi) * C + j] = key[j];
        a.idx[size_t(qi) * C + j] = id[j];
    }
    a.count[qi] = count;
    // A full list left points out: their single-precision keys were at least the worst kept.
    double leftOut = INFINITY;
    if (count == C) {
        const double last = key[C - 1];
        leftOut =
            S == Sum::Dot ? last - a.absError : last / (1.0 + a.relError) - subnormalKeyError(a.d);
    }
    a.leftOut[qi] = leftOut;
}

/// What the exact re-rank reads and writes for a batch of queries (as CandidateArgs).
struct RerankArgs {
    const float* rows;        // n x d, the points themselves
    const double* shift;      // n: knnRowScales' shift
    const double* norm;       // n: knnRowScales' norm
    int d, q0, qn, k;         // columns, the batch, neighbours
    const uint32_t* list;     // null: queries q0 .. q0 + qn - 1 (kNoPoint: padding)
    const uint32_t* candIdx;  // qn x C candidates
    const int* candCount;     // qn
    const double* leftOut;    // qn
    int others;               // usable points other than a usable query
    uint32_t* outIdx;         // qn x k neighbours, nearest first
    double* outKey;           // qn x k exact keys
    uint8_t* certified;       // qn: 1 where the candidates are proven complete
};

/// Re-ranks each query's candidates exactly and keeps the k best (ties by index); certified
/// says whether no point left out can be nearer than the k-th: leftOut, the least exact key a
/// point left out can have, is above the k-th exact key (infinity: none was left out but those
/// never offered, so every usable point must be among the candidates).
template <Sum S, int C>
__global__ void rerankKernel(const RerankArgs a) {
    const int qi = blockIdx.x * blockDim.x + threadIdx.x;
    if (qi >= a.qn) return;
    // A padding position of the parts' layout (kNoPoint) has no candidates; any point's row
    // stands in for its query's.
    const uint32_t listed = a.list ? a.list[qi] : uint32_t(a.q0 + qi);
    const int q = listed == kNoPoint ? 0 : int(listed);
    const int m = a.candCount[qi];
    const int d = a.d;
    double key[C];
    uint32_t id[C];
    for (int j = 0; j < m; ++j) {
        const uint32_t r = a.candIdx[size_t(qi) * C + j];
        const double s = exactKey<S>(a.rows + size_t(q) * d, a.rows + size_t(r) * d, d, a.shift[q],
                                     a.norm[q], a.shift[r], a.norm[r]);
        int at = j;
        while (at > 0 && (s < key[at - 1] || (s == key[at - 1] && r < id[at - 1]))) {
            key[at] = key[at - 1];
            id[at] = id[at - 1];
            --at;
        }
        key[at] = s;
        id[at] = r;
    }
    const int kept = m < a.k ? m : a.k;
    for (int j = 0; j < kept; ++j) {
        a.outIdx[size_t(qi) * a.k + j] = id[j];
        a.outKey[size_t(qi) * a.k + j] = key[j];
    }
    const double bound = a.leftOut[qi];
    const bool sure = bound == double(INFINITY) ? m == a.others : m >= a.k && bound > key[a.k - 1];
    a.certified[qi] = sure ? 1 : 0;
}

/// Calls f(std::integral_constant<Sum, S>, std::integral_constant<int, C>) for the metric's
/// sum and the list length: the kernels' template arguments from run-time values.
template <class F>
void withSumAndList(KnnMetric metric, int C, F&& f) {
    const auto list = [&](auto sum) {
        if (C == 32)
            f(sum, std::integral_constant<int, 32>{});
        else
            f(sum, std::integral_constant<int, 64>{});
    };
    if (metric == KnnMetric::Euclidean)
        list(std::integral_constant<Sum, Sum::Squares>{});
    else if (metric == KnnMetric::Manhattan)
        list(std::integral_constant<Sum, Sum::Absolute>{});
    else
        list(std::integral_constant<Sum, Sum::Dot>{});
}

/// Launches the difference-form candidates for the metric, list length and row width.
void launchCandidates(KnnMetric metric, int C, const CandidateArgs& a) {
    withSumAndList(metric, C, [&](auto sum, auto list) {
        constexpr Sum S = decltype(sum)::value;
        constexpr int L = decltype(list)::value;
        const int blocks = (a.qn + kTileQueries - 1) / kTileQueries;
        if (a.d <= 4)
            candidateKernel<S, L, 4><<<blocks, kTileQueries>>>(a);
        else if (a.d <= 32)
            candidateKernel<S, L, 32><<<blocks, kTileQueries>>>(a);
        else
            candidateKernel<S, L, 0><<<blocks, kTileQueries>>>(a);
        SEPAL_CUDA_CHECK_LAUNCH("candidateKernel");
    });
}

/// Launches the exact re-rank for the metric and list length.
void launchRerank(KnnMetric metric, int C, const RerankArgs& a) {
    withSumAndList(metric, C, [&](auto sum, auto list) {
        rerankKernel<decltype(sum)::value, decltype(list)::value><<<(a.qn + 127) / 128, 128>>>(a);
        SEPAL_CUDA_CHECK_LAUNCH("rerankKernel");
    });
}

/// What a device's share of a build did: the figures the builder reports.
struct LaneFigures {
    uint64_t scannedTiles = 0;  // the parts' candidates' tiles (0 without parts)
    size_t lookedAgain = 0;     // queries the difference form took a second time
    double firstSeconds = 0;    // the first candidates, their re-rank and collection
    double secondSeconds = 0;   // the second look at the queries the first did not prove
};

/// What every device's share of a build reads: the points, their scales, and the unit rows
/// cosine and pearson compare in single precision.
struct GraphInput {
    const Matrix& points;
    const KnnRowScales& scales;
    const std::vector<float>& unitRows;  // empty for euclidean and manhattan
    const SplitKnnInput& split;          // empty (n = 0) where the tensor cores do not take it
    const KnnPartLayout* parts;          // null: no parts (split in the points' order)
    size_t k;
    KnnMetric metric;
    int others;  // usable points other than a usable query
};

class CudaKnnGraphBuilder : public KnnGraphBuilder {
  public:
    CudaKnnGraphBuilder(std::vector<int> devices, size_t batch, size_t partsFrom)
        : m_devices(std::move(devices)),
          m_batch(batch > 0 ? batch : kBatch),
          m_partsFrom(partsFrom) {}

    std::string name() const override { return "cuda"; }

    KnnGraph buildRows(const Matrix& points, size_t k, KnnMetric metric, size_t first,
                       size_t last) override {
        m_stages.clear();
        Stopwatch watch;
        KnnGraph g = emptyKnnGraph(points.rows, k, first, last);
        const size_t n = points.rows, d = points.cols;
        m_redone = 0;
        m_lookedAgain = 0;
        m_compared = 1.0;
        if (k + kMargin > 64 || n > size_t(INT32_MAX - 64) || d > size_t(INT32_MAX) / 2) {
            // Beyond what the kernels hold: the CPU gives the same graph.
            exactNeighbours(knnRows(points, metric), rowsOf(g), g);
            m_redone = g.rows();
            return g;
        }
        const KnnRowScales scales = knnRowScales(points, metric);
        std::vector<float> unitRows;
        if (metric == KnnMetric::Cosine || metric == KnnMetric::Pearson) {
            // Candidates compare the unit vectors in single precision.
            unitRows.assign(n * d, 0.0f);
            for (size_t i = 0; i < n; ++i)
                if (scales.usable[i] && scales.norm[i] > 0)
                    for (size_t c = 0; c < d; ++c)
                        unitRows[i * d + c] =
                            float((double(points.at(i, c)) - scales.shift[i]) / scales.norm[i]);
        }
        const int others = int(std::count(scales.usable.begin(), scales.usable.end(), 1)) - 1;
        // The tensor cores' candidates where the metric has a dot-product form.
        watch.lap("scales");
        SplitKnnInput split;
        if (splitKnnTakes(metric, d)) split = prepareSplitKnn(points, scales, metric, unitRows);
        watch.lap("split rows");
        std::vector<int> devices = m_devices;
        if (devices.empty())
            for (int i = 0; i < deviceCount(); ++i) devices.push_back(i);
        if (devices.empty()) throw InputError("k-NN graph: no CUDA device");
        int previous = 0;
        SEPAL_CUDA_CHECK(cudaGetDevice(&previous));
        // The parts, for a whole graph only (a share of the rows keeps the points' order), where
        // every device takes the split candidates and the padded positions stay within int.
        std::unique_ptr<KnnPartLayout> parts;
        if (split.n > 0 && first == 0 && last == n && knnPartsTake(metric, n, m_partsFrom) &&
            n + size_t(kKnnPartTile) * kMaxKnnParts < size_t(INT32_MAX) &&
            everyDeviceTakesSplit(devices)) {
            useDevice(devices[0]);  // the k-means
            double kmeansSeconds = 0;
            parts = std::make_unique<KnnPartLayout>(gatherKnnParts(points, split, &kmeansSeconds));
            SEPAL_CUDA_CHECK(cudaSetDevice(previous));
            watch.laps.emplace_back("k-means", kmeansSeconds);
            watch.lap("parts");  // the k-means included
            split = splitInLayout(split, *parts);
            watch.lap("layout");
        }
        const GraphInput input{points, scales, unitRows, split, parts.get(), k, metric, others};
        // Batches of queries go to the devices in turn; each device (one host thread each)
        // writes only its batches' rows of g, so the graph does not depend on how many there are.
        // With parts, batches of positions: whole blocks of the layout's.
        const size_t from = parts ? 0 : first, to = parts ? parts->positions() : last;
        const size_t batch =
            parts ? (m_batch + kKnnBlockQueries - 1) / kKnnBlockQueries * kKnnBlockQueries
                  : m_batch;
        const size_t batches = (to - from + batch - 1) / batch;
        const size_t lanes = std::max<size_t>(1, std::min(devices.size(), batches));
        std::vector<std::vector<uint32_t>> redo(lanes);
        std::vector<LaneFigures> figures(lanes);
        std::vector<std::exception_ptr> errors(lanes);
        const auto lane = [&](size_t w) {
            try {
                useDevice(devices[w]);
                std::vector<std::pair<size_t, size_t>> mine;
                for (size_t b = w; b < batches; b += lanes)
                    mine.emplace_back(from + b * batch, std::min(to, from + (b + 1) * batch));
                figures[w] = buildOnDevice(input, mine, g, redo[w]);
            } catch (...) {
                errors[w] = std::current_exception();
            }
        };
        if (lanes == 1) {
            lane(0);
        } else {
            std::vector<std::thread> running;
            for (size_t w = 0; w < lanes; ++w) running.emplace_back(lane, w);
            for (std::thread& t : running) t.join();
        }
        SEPAL_CUDA_CHECK(cudaSetDevice(previous));
        // The devices' wall time; of it, the longest lane's two looks (upload and layout the rest).
        watch.lap("devices");
        double firstLook = 0, secondLook = 0;
        for (const LaneFigures& f : figures) {
            firstLook = std::max(firstLook, f.firstSeconds);
            secondLook = std::max(secondLook, f.secondSeconds);
            m_lookedAgain += f.lookedAgain;
        }
        watch.laps.emplace_back("first look", firstLook);
        watch.laps.emplace_back("second look", secondLook);
        for (const std::exception_ptr& e : errors)
            if (e) std::rethrow_exception(e);
        std::vector<uint32_t> again;
        for (const auto& r : redo) again.insert(again.end(), r.begin(), r.end());
        std::sort(again.begin(), again.end());
        m_redone = again.size();
        if (parts) {
            uint64_t tiles = 0;
            for (const LaneFigures& f : figures) tiles += f.scannedTiles;
            const double positions = double(parts->positions());
            m_compared = double(tiles) * kKnnPartTile * kKnnBlockQueries / (positions * positions);
        }
        if (!again.empty()) exactNeighbours(knnRows(points, metric), again, g);
        watch.lap("cpu");
        m_stages = std::move(watch.laps);
        return g;
    }

    size_t redone() const override { return m_redone; }
    double pairsCompared() const override { return m_compared; }
    size_t lookedAgain() const override { return m_lookedAgain; }
    std::vector<std::pair<std::string, double>> stageSeconds() const override { return m_stages; }

  private:
    /// Whether every device of `devices` takes the split candidates (the current one is kept).
    static bool everyDeviceTakesSplit(const std::vector<int>& devices) {
        int previous = 0;
        SEPAL_CUDA_CHECK(cudaGetDevice(&previous));
        bool all = true;
        for (int device : devices) {
            useDevice(device);
            all = all && SplitKnnCandidates::deviceTakes();
        }
        SEPAL_CUDA_CHECK(cudaSetDevice(previous));
        return all;
    }

    /// The rows of `ranges` on the calling thread's device; queries whose candidates are not
    /// proven complete go to `redo`. With the tensor cores' candidates, the queries they cannot
    /// prove are first taken again by the difference form, which proves nearly all. Returns what
    /// the lane did (LaneFigures).
    LaneFigures buildOnDevice(const GraphInput& in,
                              const std::vector<std::pair<size_t, size_t>>& ranges, KnnGraph& g,
                              std::vector<uint32_t>& redo) const {
        LaneFigures figures;
        if (ranges.empty()) return figures;
        const size_t n = in.points.rows, d = in.points.cols, k = in.k;
        const KnnRowScales& scales = in.scales;
        DeviceBuffer<float> rows, unit;
        DeviceBuffer<uint8_t> usable;
        DeviceBuffer<double> shift, norm;
        rows.reserve(n * d);
        usable.reserve(n);
        shift.reserve(n);
        norm.reserve(n);
        SEPAL_CUDA_CHECK(cudaMemcpy(rows.get(), in.points.data(), n * d * sizeof(float),
                                    cudaMemcpyHostToDevice));
        SEPAL_CUDA_CHECK(cudaMemcpy(usable.get(), scales.usable.data(), n, cudaMemcpyHostToDevice));
        SEPAL_CUDA_CHECK(cudaMemcpy(shift.get(), scales.shift.data(), n * sizeof(double),
                                    cudaMemcpyHostToDevice));
        SEPAL_CUDA_CHECK(
            cudaMemcpy(norm.get(), scales.norm.data(), n * sizeof(double), cudaMemcpyHostToDevice));
        const float* candidateRows = rows.get();
        if (!in.unitRows.empty()) {
            unit.reserve(n * d);
            SEPAL_CUDA_CHECK(cudaMemcpy(unit.get(), in.unitRows.data(), n * d * sizeof(float),
                                        cudaMemcpyHostToDevice));
            candidateRows = unit.get();
        }
        std::unique_ptr<SplitKnnCandidates> split;
        if (in.split.n > 0 && SplitKnnCandidates::deviceTakes())
            split = std::make_unique<SplitKnnCandidates>(in.split);
        // With parts the ranges are positions: the re-rank reads each one's point through the
        // layout's order.
        const uint32_t* pointAt = nullptr;
        if (in.parts) {
            if (!split) throw std::logic_error("k-NN graph: parts without the split candidates");
            split->useParts(*in.parts);
            pointAt = split->order();
        }
        const int C = k + kMargin <= 32 ? 32 : 64;
        size_t batch = 0;  // the longest range: small inputs get small buffers
        for (const auto& [q0, q1] : ranges) batch = std::max(batch, q1 - q0);
        DeviceBuffer<float> candKey;
        DeviceBuffer<uint32_t> candIdx, outIdx, list;
        DeviceBuffer<int> candCount;
        DeviceBuffer<double> outKey, leftOut;
        DeviceBuffer<uint8_t> certified;
        candKey.reserve(batch * C);
        candIdx.reserve(batch * C);
        candCount.reserve(batch);
        outIdx.reserve(batch * k);
        outKey.reserve(batch * k);
        certified.reserve(batch);
        leftOut.reserve(batch);
        CandidateArgs cand{candidateRows,
                           usable.get(),
                           int(n),
                           int(d),
                           0,
                           0,
                           nullptr,
                           relativeKeyError(int(d)),
                           absoluteKeyError(int(d)),
                           candKey.get(),
                           candIdx.get(),
                           candCount.get(),
                           leftOut.get()};
        RerankArgs rerank{rows.get(),
                          shift.get(),
                          norm.get(),
                          int(d),
                          0,
                          0,
                          int(k),
                          nullptr,
                          candIdx.get(),
                          candCount.get(),
                          leftOut.get(),
                          in.others,
                          outIdx.get(),
                          outKey.get(),
                          certified.get()};
        std::vector<uint32_t> idx(batch * k);
        std::vector<double> keys(batch * k);
        std::vector<uint8_t> sure(batch);
        std::vector<int> counts(batch);
        // Copies a pass's results back and writes its proven queries into g; the others are
        // returned.
        const auto collect = [&](const std::vector<uint32_t>& queries) {
            const size_t qn = queries.size();
            SEPAL_CUDA_CHECK(cudaMemcpy(idx.data(), outIdx.get(), qn * k * sizeof(uint32_t),
                                        cudaMemcpyDeviceToHost));
            SEPAL_CUDA_CHECK(cudaMemcpy(keys.data(), outKey.get(), qn * k * sizeof(double),
                                        cudaMemcpyDeviceToHost));
            SEPAL_CUDA_CHECK(cudaMemcpy(sure.data(), certified.get(), qn, cudaMemcpyDeviceToHost));
            SEPAL_CUDA_CHECK(cudaMemcpy(counts.data(), candCount.get(), qn * sizeof(int),
                                        cudaMemcpyDeviceToHost));
            std::vector<uint32_t> doubtful;
            for (size_t i = 0; i < qn; ++i) {
                const size_t q = queries[i];
                if (queries[i] == kNoPoint || !scales.usable[q]) continue;
                if (!sure[i]) {
                    doubtful.push_back(uint32_t(q));
                    continue;
                }
                const size_t kept = std::min(k, size_t(counts[i]));
                for (size_t j = 0; j < kept; ++j) {
                    g.neighbours[(q - g.first) * k + j] = idx[i * k + j];
                    g.distances[(q - g.first) * k + j] = knnDistance(keys[i * k + j], in.metric);
                }
            }
            return doubtful;
        };
        std::vector<uint32_t> queries;
        for (const auto& [q0, q1] : ranges) {
            const int qn = int(q1 - q0);
            queries.resize(size_t(qn));
            for (int i = 0; i < qn; ++i)
                queries[size_t(i)] =
                    in.parts ? in.parts->order[q0 + size_t(i)] : uint32_t(q0 + size_t(i));
            cand.q0 = rerank.q0 = int(q0);
            cand.qn = rerank.qn = qn;
            cand.list = nullptr;
            rerank.list = in.parts ? pointAt + q0 : nullptr;
            StageClock::time_point look = StageClock::now();
            if (split)
                split->candidates(int(q0), qn, int(k), C, candKey.get(), candIdx.get(),
                                  candCount.get(), leftOut.get());
            else
                launchCandidates(in.metric, C, cand);
            launchRerank(in.metric, C, rerank);
            std::vector<uint32_t> doubtful = collect(queries);
            figures.firstSeconds += secondsSince(look);
            look = StageClock::now();
            if (split && !doubtful.empty()) {
                figures.lookedAgain += doubtful.size();
                list.reserve(doubtful.size());
                SEPAL_CUDA_CHECK(cudaMemcpy(list.get(), doubtful.data(),
                                            doubtful.size() * sizeof(uint32_t),
                                            cudaMemcpyHostToDevice));
                cand.qn = rerank.qn = int(doubtful.size());
                cand.list = rerank.list = list.get();
                launchCandidates(in.metric, C, cand);
                launchRerank(in.metric, C, rerank);
                doubtful = collect(doubtful);
            }
            figures.secondSeconds += secondsSince(look);
            redo.insert(redo.end(), doubtful.begin(), doubtful.end());
        }
        figures.scannedTiles = split ? split->scannedTiles() : 0;
        return figures;
    }

    std::vector<int> m_devices;  // empty: every visible device
    size_t m_batch;              // queries per launch
    size_t m_partsFrom;          // points from which a whole euclidean graph takes parts
    size_t m_redone = 0;
    double m_compared = 1.0;   // the last build's share of pairs compared
    size_t m_lookedAgain = 0;  // the last build's queries taken a second time
    std::vector<std::pair<std::string, double>> m_stages;  // the last build's
};

}  // namespace

std::unique_ptr<KnnGraphBuilder> makeCudaKnnGraphBuilder(std::vector<int> devices,
                                                         size_t queriesPerBatch,
                                                         size_t partsFromPoints) {
    return std::make_unique<CudaKnnGraphBuilder>(
        std::move(devices), queriesPerBatch,
        partsFromPoints > 0 ? partsFromPoints : defaultKnnPartsFrom());
}

}  // namespace sepal::cuda
