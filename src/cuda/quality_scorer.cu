// Trustworthiness and k-NN preservation of every cell on the GPU, with scoreEmbedding's figures:
// the exact k-NN graph of the cells in the picture (a k-d tree on the CPU's cores), then each
// picture neighbour's rank in data space, counted over every cell in one scan: from tensor cores'
// split products where the k-NN graph takes them (split_ranks.h), from a matrix product of split
// FP16 parts for wider rows (wide_ranks.h), otherwise from single-precision keys over tiles.
// Each decides "nearer" or "farther" where its error bound allows; the few keys too close to
// call are taken again exactly in double precision in the CPU's order, so the counts, and so
// the scores, equal the CPU's. From 2^18 cells the split products' scan leaves out the k-means
// parts that no target of a warp's cells cuts through (rank_parts.h): a picture that keeps its
// neighbourhoods compares a few percent of the pairs. No data-space graph is built: a picture
// neighbour is a data-space neighbour exactly when its rank is at most k (ranks and the graph both
// order by key, then index), so the ranks give the k-NN preservation too.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/common/stopwatch.h"
#include "core/knn/knn_graph.h"
#include "core/knn/plane_knn.h"
#include "core/metrics/quality.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_error.h"
#include "cuda/device_buffer.h"
#include "cuda/knn_parts.h"
#include "cuda/split_knn.h"
#include "cuda/split_ranks.h"
#include "cuda/tile_keys.cuh"
#include "cuda/wide_ranks.h"

namespace sepal::cuda {
namespace {

constexpr int kMostK = 32;  // neighbours the rank kernel holds per cell

/// For each cell and each of its targets (its 2D neighbours, at exact key tKey): how many other
/// cells are nearer in data space, or as near with a lower index.
template <int W>
__global__ void rankKernel(const float* __restrict__ rows, const uint8_t* __restrict__ usable,
                           int m, int d, int k, double relError, const uint32_t* __restrict__ tIdx,
                           const double* __restrict__ tKey, uint32_t* __restrict__ outCount) {
    const int qi = blockIdx.x * kTileQueries + threadIdx.x;
    double key[kMostK];
    float below[kMostK], above[kMostK];
    uint32_t id[kMostK], hits[kMostK + 1], exact[kMostK];
    int slot[kMostK];
    int targets = 0;
    if (qi < m)
        for (int j = 0; j < k; ++j) {
            const uint32_t t = tIdx[size_t(qi) * k + j];
            // Kept in ascending order of key, so that the thresholds ascend too.
            const double e = tKey[size_t(qi) * k + j];
            int at = targets++;
            while (at > 0 && e < key[at - 1]) {
                key[at] = key[at - 1], id[at] = id[at - 1], slot[at] = slot[at - 1];
                --at;
            }
            key[at] = e, id[at] = t, slot[at] = j;
        }
    const double tiny = subnormalKeyError(d);
    for (int t = 0; t < targets; ++t) {
        // Float keys below `below` are surely nearer, above `above` surely farther.
        below[t] = __double2float_rd(key[t] * (1.0 - relError) - tiny);
        above[t] = __double2float_ru(key[t] * (1.0 + relError) + tiny);
        exact[t] = 0;
    }
    for (int t = 0; t <= targets; ++t) hits[t] = 0;
    const float farthest = targets > 0 ? above[targets - 1] : -INFINITY;
    const float* mine = rows + size_t(qi < m ? qi : 0) * d;
    scanReferences<Sum::Squares, W>(
        rows, usable, m, d, qi, qi < m && targets > 0, [&](int ref, float f) {
            // Most cells are farther than every target: one comparison rules them out.
            if (f > farthest) return;
            // Surely nearer than targets pos.. (one count for all of them, summed at the end).
            int pos = 0;
            while (pos < targets && !(f < below[pos])) ++pos;
            ++hits[pos];
            // The targets below pos whose error interval holds f: too close to call in single
            // precision, taken exactly.
            if (pos == 0 || f > above[pos - 1]) return;
            const double e = exactKey<Sum::Squares>(mine, rows + size_t(ref) * d, d, 0, 1, 0, 1);
            for (int t = pos - 1; t >= 0 && f <= above[t]; --t)
                if (e < key[t] || (e == key[t] && uint32_t(ref) < id[t])) ++exact[t];
        });
    if (qi >= m) return;
    uint32_t nearer = 0;
    for (int t = 0; t < targets; ++t) {
        nearer += hits[t];
        outCount[size_t(qi) * k + slot[t]] = nearer + exact[t];
    }
}

class CudaQualityScorer : public QualityScorer {
  public:
    std::string name() const override { return "cuda"; }

    QualityScores score(const float* high, size_t n, size_t d, const float* low,
                        const QualityParams& params) override {
        const std::vector<size_t> sample = qualitySample(n, params);
        const size_t m = sample.size(), k = params.k;
        // Every cell (the sorted sample is then 0 .. n - 1): the caller's rows as they are (a
        // copy of 10^6 x 1024 would cost 4 GB and a second); a sample: its rows gathered.
        Matrix gathered, ls(m, 2);
        if (m < n) gathered = Matrix(m, d);
        const RowsView hs = m < n ? RowsView(gathered) : RowsView(high, n, d);
        bool finite = true;
#pragma omp parallel for schedule(static) reduction(&& : finite)
        for (long long ii = 0; ii < static_cast<long long>(m); ++ii) {
            const size_t i = size_t(ii);
            if (m < n) std::copy_n(high + sample[i] * d, d, gathered.row(i));
            std::copy_n(low + sample[i] * 2, 2, ls.row(i));
            for (size_t c = 0; c < d; ++c) finite = finite && std::isfinite(hs.row(i)[c]);
            finite = finite && std::isfinite(ls.row(i)[0]) && std::isfinite(ls.row(i)[1]);
        }
        // Beyond what the kernel holds, or missing values (whose order the CPU defines): the CPU.
        if (!finite || k > size_t(kMostK) || m > size_t(INT32_MAX - 64) ||
            d > size_t(INT32_MAX) / 2)
            return scoreEmbedding(high, n, d, low, params);
        Stopwatch watch;
        // The rows go to the device on a thread of their own, while the host finds the picture's
        // graph, the targets' keys and the split rows.
        DeviceBuffer<float> deviceRows;
        deviceRows.reserve(m * d);
        int device = 0;
        SEPAL_CUDA_CHECK(cudaGetDevice(&device));
        std::future<void> upload = std::async(std::launch::async, [&] {
            SEPAL_CUDA_CHECK(cudaSetDevice(device));
            SEPAL_CUDA_CHECK(cudaMemcpy(deviceRows.get(), hs.values, m * d * sizeof(float),
                                        cudaMemcpyHostToDevice));
        });
        const auto rowsOnDevice = [&]() -> const float* {
            if (upload.valid()) upload.get();  // rethrows the upload's error here
            return deviceRows.get();
        };
        const KnnGraph inPicture = planeKnnGraph(ls, k);
        watch.lap("picture graph");

        // The targets: each cell's 2D neighbours, in the picture's order (the CPU's order of the
        // penalty's sum), with their exact keys in data space.
        std::vector<uint32_t> targets(inPicture.neighbours.begin(), inPicture.neighbours.end());
        std::vector<double> keys(m * k, 0.0);
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < (long long)m; ++ii) {
            const size_t i = size_t(ii);
            squaredKeys(hs, i, targets.data() + i * k, k, keys.data() + i * k);
        }
        std::vector<uint32_t> nearer;
        watch.lap("targets");
        double compared = -1.0;
        if (!splitRanks(hs, k, targets, keys, rowsOnDevice, watch, nearer, compared)) {
            const float* rows = rowsOnDevice();
            watch.lap("ranks: rows on the device");
            nearer = tileRanks(hs, targets, keys, rows);
        }
        watch.lap("ranks");
        // The sums of scoreEmbedding, in its order: rank = 1 + the cells nearer (ties by index).
        double sumP = 0.0, sumK = 0.0;
        QualityScores s;
        s.stageSeconds = watch.laps;
        s.pairsCompared = compared;
        s.keptPerPoint.resize(m);
        for (size_t i = 0; i < m; ++i) {
            double p = 0.0;
            size_t both = 0;
            for (size_t j = 0; j < k; ++j) {
                const size_t rank = size_t(1) + nearer[i * k + j];
                if (rank <= k)
                    ++both;
                else
                    p += static_cast<double>(rank - k);
            }
            const double kept = double(both) / double(k);
            sumP += p;
            sumK += kept;
            s.keptPerPoint[i] = float(kept);
        }
        const double md = double(m), kd = double(k);
        s.trustworthiness = 1.0 - 2.0 / (md * kd * (2.0 * md - 3.0 * kd - 1.0)) * sumP;
        s.knnPreservation = sumK / md;
        s.points = m;
        return s;
    }

  private:
    /// The ranks' counts from the tensor cores' split products (split_ranks.h): false where
    /// they do not take the rows, k or the device, or SEPAL_RANK_TENSOR=0 turns them off (for
    /// comparisons). From 2^18 cells on (knn_parts.h's threshold) the cells are gathered into
    /// k-means parts first, and each warp scans only the parts its targets cut through.
    /// compared: the share of the pairs whose products were compared (-1: the wide kernel's).
    static bool splitRanks(RowsView hs, size_t k, const std::vector<uint32_t>& targets,
                           const std::vector<double>& keys,
                           const std::function<const float*()>& rowsOnDevice, Stopwatch& watch,
                           std::vector<uint32_t>& nearer, double& compared) {
        const size_t m = hs.rows, d = hs.cols;
        const int width = rankWidthFor(k);
        const char* wanted = std::getenv("SEPAL_RANK_TENSOR");
        if ((wanted && std::string(wanted) == "0") || width == 0) return false;
        // Rows of up to 64 columns: the split candidates' fragments; wider ones: the wide kernel.
        const bool narrow =
            splitKnnTakes(KnnMetric::Euclidean, d) && SplitKnnCandidates::deviceTakes();
        const bool wide = !narrow && wideRanksTake(m, d, width);
        if (!narrow && !wide) return false;
        const SplitKnnInput in =
            prepareSplitKnn(hs, knnRowScales(hs, KnnMetric::Euclidean), KnnMetric::Euclidean, {},
                            wide ? kWideSumColumns : 0);
        if (in.n == 0) return false;
        watch.lap("ranks: split rows");
        // (Positions, padding included, stay within int, as the kernels index them.)
        const bool withParts = narrow &&
                               knnPartsTake(KnnMetric::Euclidean, m, defaultKnnPartsFrom()) &&
                               m + size_t(kKnnPartTile) * kMaxKnnParts < size_t(INT32_MAX);
        KnnPartLayout layout;
        SplitKnnInput laid;
        std::vector<uint32_t> positionOf, partOf;
        if (withParts) {
            layout = gatherKnnParts(hs, in);
            laid = splitInLayout(in, layout);
            positionOf.assign(m, 0);
            partOf.assign(m, 0);
            for (int p = 0; p < layout.parts(); ++p)
                for (size_t pos = size_t(layout.partTiles[size_t(p)]) * kKnnPartTile;
                     pos < size_t(layout.partTiles[size_t(p) + 1]) * kKnnPartTile; ++pos)
                    if (layout.order[pos] != kNoPoint) {
                        positionOf[layout.order[pos]] = uint32_t(pos);
                        partOf[layout.order[pos]] = uint32_t(p);
                    }
            watch.lap("ranks: parts");
        }
        // The cells whose farthest target lies farthest beyond their nearest first: their
        // products fall inside the intervals, the rest's seldom do, and a warp of the latter
        // moves on quickly. Buckets of an eighth of a binary order of magnitude do as well as a
        // sort and cost a pass. With parts, part by part (a block's cells then reach the same
        // parts), and by bucket within each.
        constexpr int kBuckets = 256;
        std::vector<uint32_t> bucket(m);
        const long long rows = static_cast<long long>(m);
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < rows; ++ii) {
            const size_t i = size_t(ii);
            double farthest = 0.0, nearest = std::numeric_limits<double>::infinity();
            for (size_t j = 0; j < k; ++j) {
                farthest = std::max(farthest, keys[i * k + j]);
                nearest = std::min(nearest, keys[i * k + j]);
            }
            const double ratio = farthest / std::max(nearest, 1e-300);
            const double place = std::min(8.0 * std::log2(std::max(ratio, 1.0)), kBuckets - 1.0);
            bucket[i] = uint32_t(kBuckets - 1 - int(place)) +
                        (withParts ? partOf[i] * uint32_t(kBuckets) : 0u);
        }
        const size_t sortKeys = size_t(withParts ? layout.parts() : 1) * kBuckets;
        std::vector<size_t> start(sortKeys + 1, 0);
        for (size_t i = 0; i < m; ++i) ++start[bucket[i] + 1];
        for (size_t b = 0; b < sortKeys; ++b) start[b + 1] += start[b];
        std::vector<uint32_t> cells(m);
        for (size_t i = 0; i < m; ++i) cells[start[bucket[i]]++] = uint32_t(i);
        // Each cell's targets in ascending order of key in its last places (the kernel's
        // intervals ascend; unused places, at minus infinity, come first).
        RankTargets ranked = emptyRankTargets(cells.size(), width);
        std::vector<int> targetOf(cells.size() * size_t(width), -1);  // j of each place
        const long long slots = static_cast<long long>(cells.size());
#pragma omp parallel
        {
            std::vector<int> order;
#pragma omp for schedule(static)
            for (long long ss = 0; ss < slots; ++ss) {
                const size_t s = size_t(ss), first = size_t(cells[s]) * k;
                ranked.cells[s] = withParts ? positionOf[cells[s]] : cells[s];
                order.clear();
                for (size_t j = 0; j < k; ++j) order.push_back(int(j));
                std::sort(order.begin(), order.end(),
                          [&](int a, int b) { return keys[first + a] < keys[first + b]; });
                const int offset = width - int(order.size());
                for (size_t p = 0; p < order.size(); ++p) {
                    const size_t at = first + size_t(order[p]);
                    addRankTarget(in, cells[s], keys[at], targets[at], s, offset + int(p), ranked);
                    targetOf[s * size_t(width) + size_t(offset) + p] = order[p];
                }
            }
        }
        watch.lap("ranks: targets' intervals");
        const float* deviceRows = rowsOnDevice();
        watch.lap("ranks: rows on the device");
        WideRankStats stats;
        const std::vector<uint32_t> counts =
            wide ? wideRankCounts(in, deviceRows, int(d), ranked, {}, &stats)
                 : splitRankCounts(SplitKnnCandidates(withParts ? laid : in), deviceRows, int(d),
                                   ranked, withParts ? &layout : nullptr, &compared);
        watch.lap("ranks: counts");
        if (wide) {
            watch.laps.emplace_back("ranks: counts: products", stats.productSeconds);
            watch.laps.emplace_back("ranks: counts: listed keys", stats.listedSeconds);
            // For the benchmarks' notes: how many products needed their exact keys.
            if (std::getenv("SEPAL_RANK_STATS"))
                std::fprintf(stderr, "wide ranks: %llu products listed, %llu past the list\n",
                             stats.listed, stats.pastCapacity);
        }
        nearer.assign(m * k, 0);
        for (size_t e = 0; e < targetOf.size(); ++e)
            if (targetOf[e] >= 0)
                nearer[size_t(cells[e / size_t(width)]) * k + size_t(targetOf[e])] = counts[e];
        return true;
    }

    /// The ranks' counts from single-precision keys over tiles (rankKernel).
    static std::vector<uint32_t> tileRanks(RowsView hs, const std::vector<uint32_t>& targets,
                                           const std::vector<double>& keys,
                                           const float* deviceRows) {
        const size_t m = hs.rows, d = hs.cols, k = targets.size() / m;
        DeviceBuffer<uint8_t> usable;
        DeviceBuffer<uint32_t> deviceTargets, counts;
        DeviceBuffer<double> deviceKeys;
        usable.reserve(m);
        deviceTargets.reserve(m * k);
        counts.reserve(m * k);
        deviceKeys.reserve(m * k);
        SEPAL_CUDA_CHECK(cudaMemset(usable.get(), 1, m));
        SEPAL_CUDA_CHECK(cudaMemcpy(deviceTargets.get(), targets.data(), m * k * sizeof(uint32_t),
                                    cudaMemcpyHostToDevice));
        SEPAL_CUDA_CHECK(cudaMemcpy(deviceKeys.get(), keys.data(), m * k * sizeof(double),
                                    cudaMemcpyHostToDevice));
        SEPAL_CUDA_CHECK(cudaMemset(counts.get(), 0, m * k * sizeof(uint32_t)));
        const int blocks = int((m + kTileQueries - 1) / kTileQueries);
        const double rel = relativeKeyError(int(d));
        if (d <= 4)
            rankKernel<4><<<blocks, kTileQueries>>>(deviceRows, usable.get(), int(m), int(d),
                                                    int(k), rel, deviceTargets.get(),
                                                    deviceKeys.get(), counts.get());
        else if (d <= 32)
            rankKernel<32><<<blocks, kTileQueries>>>(deviceRows, usable.get(), int(m), int(d),
                                                     int(k), rel, deviceTargets.get(),
                                                     deviceKeys.get(), counts.get());
        else
            rankKernel<0><<<blocks, kTileQueries>>>(deviceRows, usable.get(), int(m), int(d),
                                                    int(k), rel, deviceTargets.get(),
                                                    deviceKeys.get(), counts.get());
        SEPAL_CUDA_CHECK_LAUNCH("rankKernel");
        std::vector<uint32_t> nearer(m * k);
        SEPAL_CUDA_CHECK(cudaMemcpy(nearer.data(), counts.get(), m * k * sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost));
        return nearer;
    }
};

}  // namespace

std::unique_ptr<QualityScorer> makeCudaQualityScorer() {
    return std::make_unique<CudaQualityScorer>();
}

}  // namespace sepal::cuda
