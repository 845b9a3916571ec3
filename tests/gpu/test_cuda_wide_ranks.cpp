// The wide rank kernel (cuda/wide_ranks.h) counts, for rows of more than 64 columns, exactly the
// cells a brute force over the CPU's keys counts: far from the origin, with duplicated cells,
// with a crowd of equal cells, and with a list too small for the products inside intervals
// (blocks then take those exact keys themselves); and the GPU's trustworthiness of wide rows
// equals the CPU's to the last bit. The rows' preparation (host code) is tested without a GPU.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "core/common/matrix.h"
#include "core/knn/knn_graph.h"
#include "core/metrics/quality.h"
#include "cuda/device_buffer.h"
#include "cuda/split_knn.h"
#include "cuda/split_ranks.h"
#include "cuda/wide_ranks.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

/// Every pair's key in the CPU's order (squaredKey), n x n.
std::vector<double> allKeys(const Matrix& m) {
    const size_t n = m.rows;
    std::vector<double> keys(n * n);
#pragma omp parallel for schedule(dynamic, 16)
    for (long long ii = 0; ii < (long long)n; ++ii)
        for (size_t j = 0; j < n; ++j)
            keys[size_t(ii) * n + j] = squaredKey(m.row(size_t(ii)), m.row(j), m.cols);
    return keys;
}

/// Each cell's k targets (its three nearest and k - 3 others drawn at random), ascending by key
/// in the last places of its slot, as the quality scorer lays them out.
cuda::RankTargets targetsOf(const Matrix& m, const cuda::SplitKnnInput& in,
                            const std::vector<double>& keys, size_t k, uint32_t seed) {
    const size_t n = m.rows;
    const int width = cuda::rankWidthFor(k);
    cuda::RankTargets t = cuda::emptyRankTargets(n, width);
    std::mt19937 rng(seed);
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) {
        t.cells[i] = uint32_t(i);
        std::iota(order.begin(), order.end(), 0u);
        const double* row = &keys[i * n];
        std::partial_sort(
            order.begin(), order.begin() + 4, order.end(),
            [&](uint32_t a, uint32_t b) { return row[a] < row[b] || (row[a] == row[b] && a < b); });
        std::vector<uint32_t> chosen;
        for (size_t j = 0; j < 4 && chosen.size() < 3; ++j)
            if (order[j] != i) chosen.push_back(order[j]);
        while (chosen.size() < k) {
            const uint32_t c = uint32_t(rng() % n);
            if (c != i && std::find(chosen.begin(), chosen.end(), c) == chosen.end())
                chosen.push_back(c);
        }
        std::sort(chosen.begin(), chosen.end(), [&](uint32_t a, uint32_t b) {
            return row[a] < row[b] || (row[a] == row[b] && a < b);
        });
        const int offset = width - int(k);
        for (size_t p = 0; p < k; ++p)
            cuda::addRankTarget(in, uint32_t(i), row[chosen[p]], chosen[p], i, offset + int(p), t);
    }
    return t;
}

/// The brute force: per slot and place, the cells other than the slot's nearer than the target.
std::vector<uint32_t> bruteCounts(const std::vector<double>& keys, size_t n,
                                  const cuda::RankTargets& t) {
    const size_t width = size_t(t.width);
    std::vector<uint32_t> counts(n * width, 0);
    for (size_t s = 0; s < n; ++s)
        for (size_t p = 0; p < width; ++p) {
            const size_t at = s * width + p;
            if (t.below[at] == -std::numeric_limits<float>::infinity()) continue;  // unused
            const double* row = &keys[size_t(t.cells[s]) * n];
            for (size_t l = 0; l < n; ++l)
                if (l != t.cells[s] &&
                    (row[l] < t.key[at] || (row[l] == t.key[at] && l < t.id[at])))
                    ++counts[at];
        }
    return counts;
}

/// Runs the wide kernel on m's rows (with `limits`: the list's capacity and the cells per
/// launch) and expects the brute force's counts.
void expectBruteCounts(const Matrix& m, size_t k, const cuda::WideRankLimits& limits,
                       const std::string& what) {
    const cuda::SplitKnnInput in = cuda::prepareSplitKnn(
        m, knnRowScales(m, KnnMetric::Euclidean), KnnMetric::Euclidean, {}, cuda::kWideSumColumns);
    ASSERT_GT(in.n, 0u) << what;
    ASSERT_TRUE(cuda::wideRanksTake(m.rows, m.cols, cuda::rankWidthFor(k))) << what;
    const std::vector<double> keys = allKeys(m);
    const cuda::RankTargets targets = targetsOf(m, in, keys, k, uint32_t(m.rows + m.cols));
    cuda::DeviceBuffer<float> rows;
    rows.reserve(m.values.size());
    ASSERT_EQ(cudaMemcpy(rows.get(), m.values.data(), m.values.size() * sizeof(float),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    const std::vector<uint32_t> gpu =
        cuda::wideRankCounts(in, rows.get(), int(m.cols), targets, limits);
    const std::vector<uint32_t> cpu = bruteCounts(keys, m.rows, targets);
    ASSERT_EQ(gpu.size(), cpu.size()) << what;
    size_t differ = 0;
    for (size_t e = 0; e < cpu.size(); ++e)
        if (gpu[e] != cpu[e] && differ++ < 5)
            ADD_FAILURE() << what << ": slot " << e / size_t(targets.width) << " place "
                          << e % size_t(targets.width) << ": GPU " << gpu[e] << ", brute force "
                          << cpu[e];
    EXPECT_EQ(differ, 0u) << what;
}

Matrix matrixOf(const std::vector<float>& x, size_t n, size_t d) {
    Matrix m(n, d);
    std::copy(x.begin(), x.end(), m.values.begin());
    return m;
}

TEST(SplitKnnInput, PartialSumsNarrowTheBoundAndPadTheRows) {
    // Host code alone (it runs without a GPU): the wide kernel's rows are padded to its stages
    // of 32 columns with zeros (an unusable row all zeros; fresh pages are zeros anyway, so
    // this part shows the loops' writes only where the allocator hands back used memory),
    // centred on the column means, and carry a bound that restarting the sums every 32 columns
    // makes about 25 times narrower at 1024 columns (80 x 2^-22 against 2056).
    for (size_t d : {size_t(100), size_t(1024)}) {
        const size_t n = 600;
        auto x = randomPoints(n, d, uint32_t(d), 3, 20.0f);
        x[5 * d + 3] = std::nanf("");  // row 5 cannot be used: its values are all zeros
        const Matrix m = matrixOf(x, n, d);
        const KnnRowScales scales = knnRowScales(m, KnnMetric::Euclidean);
        const cuda::SplitKnnInput one = cuda::prepareSplitKnn(m, scales, KnnMetric::Euclidean, {});
        const cuda::SplitKnnInput wide =
            cuda::prepareSplitKnn(m, scales, KnnMetric::Euclidean, {}, cuda::kWideSumColumns);
        ASSERT_EQ(wide.n, n);
        EXPECT_EQ(wide.sumColumns, cuda::kWideSumColumns);
        EXPECT_EQ(one.sumColumns, 0);
        EXPECT_EQ(size_t(wide.stride), (d + 31) / 32 * 32) << d;
        EXPECT_EQ(size_t(one.stride), (d + 15) / 16 * 16) << d;
        const size_t stride = size_t(wide.stride);
        for (size_t i = 0; i < n; ++i) {
            // The same rows either way; zeros past the data.
            for (size_t c = 0; c < d; ++c)
                ASSERT_EQ(wide.rows[i * stride + c], one.rows[i * size_t(one.stride) + c]);
            for (size_t c = d; c < stride; ++c) ASSERT_EQ(wide.rows[i * stride + c], 0.0f);
            if (i == 5) {
                for (size_t c = 0; c < d; ++c) ASSERT_EQ(wide.rows[i * stride + c], 0.0f);
                continue;
            }
            ASSERT_GT(wide.error[i], 0.0) << i;
            if (d == 1024) EXPECT_LT(wide.error[i] * 20, one.error[i]) << i;
            if (d == 100) EXPECT_LT(wide.error[i], one.error[i]) << i;
        }
        // Centred: every column's mean is near zero against the data's offset of 20.
        for (size_t c = 0; c < d; ++c) {
            double sum = 0.0;
            for (size_t i = 0; i < n; ++i) sum += wide.rows[i * stride + c];
            EXPECT_LT(std::fabs(sum / double(n)), 1e-4) << "column " << c;
        }
    }
}

TEST(CudaWideRanks, CountLikeABruteForceFarFromTheOriginAndWithDuplicates) {
    SEPAL_REQUIRE_GPU();
    struct Shape {
        size_t n, d, k;
        float offset;
        int clusters;
    };
    for (const Shape s : {Shape{1300, 65, 10, 0.0f, 0}, Shape{1100, 200, 8, 40.0f, 5},
                          Shape{900, 1024, 16, 0.0f, 3}, Shape{700, 1000, 10, 300.0f, 0}}) {
        auto x = randomPoints(s.n, s.d, uint32_t(s.n * 7 + s.d), s.clusters, s.offset);
        // Every 11th cell a copy of the one before it: keys of zero and ties by index.
        for (size_t i = 11; i < s.n; i += 11)
            std::copy_n(x.begin() + long((i - 1) * s.d), s.d, x.begin() + long(i * s.d));
        expectBruteCounts(matrixOf(x, s.n, s.d), s.k, {},
                          "n=" + std::to_string(s.n) + " d=" + std::to_string(s.d) +
                              " offset=" + std::to_string(s.offset));
    }
}

TEST(CudaWideRanks, ACrowdOfEqualCellsPastTheListsCapacity) {
    SEPAL_REQUIRE_GPU();
    // Four cells in five at one point: most products of a crowd cell lie inside its intervals,
    // far more than a list of 100 holds; the blocks take the rest themselves.
    const size_t n = 800, d = 96;
    auto x = randomPoints(n, d, 99);
    for (size_t i = 0; i < n; ++i)
        if (i % 5 != 0) std::fill_n(x.begin() + long(i * d), d, 0.75f);
    const Matrix m = matrixOf(x, n, d);
    expectBruteCounts(m, 10, {100, 0}, "a crowd, a list of 100");
    expectBruteCounts(m, 10, {}, "a crowd, the default list");
}

TEST(CudaWideRanks, ManyLaunchesCountAsOne) {
    SEPAL_REQUIRE_GPU();
    // Launches of 300 cells (not a multiple of a block's 128) over 1,001 cells: the later
    // launches' slots start mid-way, and the counts of each land in their own places.
    const size_t n = 1001, d = 130;
    const Matrix m = matrixOf(randomPoints(n, d, 5, 4), n, d);
    expectBruteCounts(m, 10, {0, 300}, "launches of 300 cells");
    expectBruteCounts(m, 16, {50, 300}, "launches of 300 cells, a list of 50");
}

TEST(CudaWideRanks, RefusesRowsPreparedForAnotherSum) {
    SEPAL_REQUIRE_GPU();
    // Rows prepared for one sum over the row carry a bound the wide kernel's sums do not keep.
    const size_t n = 300, d = 96;
    const Matrix m = matrixOf(randomPoints(n, d, 8), n, d);
    const cuda::SplitKnnInput in =
        cuda::prepareSplitKnn(m, knnRowScales(m, KnnMetric::Euclidean), KnnMetric::Euclidean, {});
    const cuda::RankTargets targets = targetsOf(m, in, allKeys(m), 10, 3);
    cuda::DeviceBuffer<float> rows;
    rows.reserve(m.values.size());
    EXPECT_THROW(cuda::wideRankCounts(in, rows.get(), int(d), targets), std::logic_error);
}

TEST(CudaWideRanks, TrustworthinessOfWideRowsEqualsTheCpus) {
    SEPAL_REQUIRE_GPU();
    for (size_t d : {size_t(100), size_t(512)}) {
        const size_t n = 2500;
        const auto high = randomPoints(n, d, uint32_t(d), 6);
        std::vector<float> low(2 * n);
        for (size_t i = 0; i < n; ++i) {
            low[2 * i] = high[i * d];
            low[2 * i + 1] = i % 3 == 0 ? high[((i * 7919) % n) * d + 1] : high[i * d + 1];
        }
        QualityParams params;
        params.k = 10;
        params.sampleSize = 0;
        const QualityScores cpu = scoreEmbedding(high.data(), n, d, low.data(), params);
        const QualityScores gpu =
            cuda::makeCudaQualityScorer()->score(high.data(), n, d, low.data(), params);
        EXPECT_EQ(gpu.trustworthiness, cpu.trustworthiness) << "d=" << d;
        EXPECT_EQ(gpu.knnPreservation, cpu.knnPreservation) << "d=" << d;
        EXPECT_EQ(gpu.keptPerPoint, cpu.keptPerPoint) << "d=" << d;
        // The wide kernel ran: its stages are timed.
        bool wide = false;
        for (const auto& [stage, seconds] : gpu.stageSeconds)
            wide |= stage == "ranks: counts: products";
        EXPECT_TRUE(wide) << "d=" << d;
    }
}

}  // namespace
}  // namespace sepal::test
