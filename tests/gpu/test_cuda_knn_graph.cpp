// The GPU's k-NN graph of every point equals the CPU's (knnGraph), index for index and distance
// for distance, on every metric, with ties, far from the origin and with missing values; its
// trustworthiness and k-NN preservation equal scoreEmbedding's to the last bit.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "core/common/error.h"
#include "core/common/matrix.h"
#include "core/knn/knn_graph.h"
#include "core/metrics/quality.h"
#include "gpu_test_support.h"
#include "knn_graph_compare.h"

namespace sepal::test {
namespace {

Matrix matrixOf(const std::vector<float>& x, size_t n, size_t d) {
    Matrix m(n, d);
    std::copy(x.begin(), x.end(), m.values.begin());
    return m;
}

/// Expects the builder's graph to be the CPU's; returns the queries it redid on the CPU.
size_t expectSameGraph(const Matrix& m, size_t k, KnnMetric metric, const std::string& what,
                       std::unique_ptr<KnnGraphBuilder> builder = cuda::makeCudaKnnGraphBuilder()) {
    const KnnGraph cpu = knnGraph(m, k, metric);
    const KnnGraph gpu = builder->build(m, k, metric);
    EXPECT_EQ(gpu.neighbours.size(), cpu.neighbours.size()) << what;
    if (gpu.neighbours.size() != cpu.neighbours.size()) return builder->redone();
    EXPECT_EQ(test::graphDifferences(gpu, cpu, k, what, "GPU", "CPU"), 0u)
        << what << " (" << builder->redone() << " found again on the CPU)";
    return builder->redone();
}

TEST(CudaKnnGraph, EqualsTheCpuGraphForEveryMetricAndShape) {
    SEPAL_REQUIRE_GPU();
    const KnnMetric metrics[] = {KnnMetric::Euclidean, KnnMetric::Manhattan, KnnMetric::Cosine,
                                 KnnMetric::Pearson};
    const std::string names[] = {"euclidean", "manhattan", "cosine", "pearson"};
    struct Shape {
        size_t n, d, k;
    };
    // Small and wide rows (one and several column chunks; 12, 32 and 41 columns take the tensor
    // cores' candidates), k within and beyond 24.
    for (const Shape s : {Shape{3001, 5, 15}, Shape{2500, 32, 15}, Shape{1800, 70, 10},
                          Shape{2200, 12, 40}, Shape{2400, 41, 15}})
        for (int m = 0; m < 4; ++m)
            expectSameGraph(matrixOf(randomPoints(s.n, s.d, uint32_t(s.n + s.d), 6), s.n, s.d), s.k,
                            metrics[m],
                            names[m] + " n=" + std::to_string(s.n) + " d=" + std::to_string(s.d) +
                                " k=" + std::to_string(s.k));
}

TEST(CudaKnnGraph, TiesFarFromTheOriginAndMissingValues) {
    SEPAL_REQUIRE_GPU();
    // A grid of small integers: many exact ties, broken by the lower index on both.
    const size_t n = 2000, d = 3;
    std::vector<float> grid(n * d);
    for (size_t i = 0; i < n; ++i)
        for (size_t c = 0; c < d; ++c) grid[i * d + c] = float((i * (c + 3) + c) % 7);
    for (KnnMetric metric : {KnnMetric::Euclidean, KnnMetric::Manhattan, KnnMetric::Cosine})
        expectSameGraph(matrixOf(grid, n, d), 12, metric, "integer grid");
    // Far from the origin: clusters 10^4 away, spread 1.
    expectSameGraph(matrixOf(randomPoints(3000, 8, 7, 5, 1.0e4f), 3000, 8), 15,
                    KnnMetric::Euclidean, "far from the origin");
    // Missing values: such rows have no neighbours and are no one's.
    auto x = randomPoints(1500, 6, 3, 4);
    for (size_t i = 0; i < 1500; i += 97) x[i * 6 + i % 6] = NAN;
    expectSameGraph(matrixOf(x, 1500, 6), 8, KnnMetric::Euclidean, "missing values");
    expectSameGraph(matrixOf(x, 1500, 6), 8, KnnMetric::Pearson, "missing values (pearson)");
}

TEST(CudaKnnGraph, MissingValuesConstantRowsAndHugeValuesInTwelveColumns) {
    SEPAL_REQUIRE_GPU();
    // The tensor cores' path (12 columns): rows with a missing value (no neighbours, no one's),
    // constant rows (pearson's zero vectors, orthogonal to every other), and values near 2^62,
    // whose squared norms overflow single precision (the split form refuses them; the
    // difference form and the CPU take them).
    const size_t n = 1500, d = 12;
    auto x = randomPoints(n, d, 9, 4);
    for (size_t i = 0; i < n; i += 97) x[i * d + i % d] = NAN;
    for (size_t i = 5; i < n; i += 89)
        for (size_t c = 0; c < d; ++c) x[i * d + c] = 3.0f;
    const Matrix m = matrixOf(x, n, d);
    expectSameGraph(m, 8, KnnMetric::Euclidean, "missing values, d=12");
    expectSameGraph(m, 8, KnnMetric::Cosine, "missing values and constant rows (cosine), d=12");
    expectSameGraph(m, 8, KnnMetric::Pearson, "missing values and constant rows (pearson), d=12");
    auto huge = randomPoints(n, d, 13, 4);
    for (float& v : huge) v *= 0x1p60f;
    expectSameGraph(matrixOf(huge, n, d), 8, KnnMetric::Euclidean, "values near 2^62");
}

TEST(CudaKnnGraph, TheTensorCoresProveAlmostEveryQuery) {
    SEPAL_REQUIRE_GPU();
    // Blobs in 32 and 41 dimensions (the tensor cores' candidates): the same graph, and the bound
    // proves the candidates complete for nearly every query, so that the CPU redoes few.
    const size_t n = 20000;
    for (size_t d : {size_t(32), size_t(41)}) {
        const Matrix m = matrixOf(randomPoints(n, d, 21, 12), n, d);
        for (KnnMetric metric : {KnnMetric::Euclidean, KnnMetric::Cosine})
            EXPECT_LE(expectSameGraph(m, 15, metric, "blobs d=" + std::to_string(d)), n / 200)
                << "queries the bound could not prove";
    }
}

TEST(CudaKnnGraph, ATinyClusterFarFromTheDatasCentreIsStillExact) {
    SEPAL_REQUIRE_GPU();
    // Half the points spread widely, half in a cluster of spread 10^-3 far from the centre: there
    // the dot-product form's error exceeds the gaps between neighbours, the tensor cores'
    // candidates cannot be proven complete, and the difference form takes those queries again.
    const size_t n = 3000, d = 16;
    auto x = randomPoints(n, d, 5, 3);
    for (size_t i = 0; i < n / 2; ++i)
        for (size_t c = 0; c < d; ++c) x[i * d + c] = 40.0f + 1.0e-3f * x[i * d + c];
    expectSameGraph(matrixOf(x, n, d), 10, KnnMetric::Euclidean, "tiny cluster");
}

TEST(CudaKnnGraph, BatchesSpreadOverSeveralDevicesGiveTheSameGraph) {
    SEPAL_REQUIRE_GPU();
    // Every visible GPU, then device 0 again (so one GPU has two lanes too), batches of 700
    // queries dealt to them in turn (the last one short).
    std::vector<int> devices;
    for (int i = 0; i < cuda::deviceCount(); ++i) devices.push_back(i);
    devices.push_back(0);
    const size_t n = 3001, d = 20;
    const Matrix m = matrixOf(randomPoints(n, d, 11, 6), n, d);
    for (KnnMetric metric : {KnnMetric::Euclidean, KnnMetric::Pearson})
        expectSameGraph(m, 15, metric, std::to_string(devices.size()) + " lanes",
                        cuda::makeCudaKnnGraphBuilder(devices, 700));
    // A share of the rows (as an MPI rank does): the whole graph's rows, and only those.
    const KnnGraph whole = knnGraph(m, 15, KnnMetric::Euclidean);
    const KnnGraph part = cuda::makeCudaKnnGraphBuilder({0, 0}, 500)
                              ->buildRows(m, 15, KnnMetric::Euclidean, 1200, 2345);
    ASSERT_EQ(part.first, 1200u);
    ASSERT_EQ(part.rows(), 1145u);
    for (size_t i = 0; i < 1145 * 15; ++i)
        ASSERT_EQ(part.neighbours[i], whole.neighbours[1200 * 15 + i]) << 1200 + i / 15;
    EXPECT_THROW(cuda::makeCudaKnnGraphBuilder({0})->buildRows(m, 15, KnnMetric::Euclidean, 5, 3),
                 InputError);
}

TEST(CudaKnnGraph, PartsLeaveOutFarClustersAndKeepTheGraph) {
    SEPAL_REQUIRE_GPU();
    // Clusters far apart in 32 and 20 columns (the tensor cores' candidates), with missing values
    // and duplicated rows (exact ties, to the lower index on both): gathered into k-means parts
    // from 1,000 points on, the graph is the CPU's and the same as without parts, while the
    // blocks compare well under half of all pairs.
    const size_t n = 50000;
    for (size_t d : {size_t(32), size_t(20)}) {
        auto x = randomPoints(n, d, uint32_t(41 + d), 8);
        for (size_t i = 0; i < n; i += 1013) x[i * d + i % d] = NAN;
        for (size_t i = 7; i + 1 < n; i += 211) std::copy_n(&x[i * d], d, &x[(i + 1) * d]);
        const Matrix m = matrixOf(x, n, d);
        const std::string what = "parts, d=" + std::to_string(d);
        auto parts = cuda::makeCudaKnnGraphBuilder({}, 0, 1000);
        const KnnGraph withParts = parts->build(m, 15, KnnMetric::Euclidean);
        const double compared = parts->pairsCompared();
        EXPECT_GT(compared, 0.0) << what;
        EXPECT_LT(compared, 0.5) << what;
        EXPECT_LE(parts->redone(), n / 200) << what;
        // The parts' own candidates prove nearly every query (the difference form's second look
        // would hide a first look that proved none).
        EXPECT_LE(parts->lookedAgain(), n / 100) << what;
        const KnnGraph cpu = knnGraph(m, 15, KnnMetric::Euclidean);
        EXPECT_EQ(test::graphDifferences(withParts, cpu, 15, what, "GPU", "CPU"), 0u) << what;
        auto whole = cuda::makeCudaKnnGraphBuilder({}, 0, size_t(-1));
        const KnnGraph without = whole->build(m, 15, KnnMetric::Euclidean);
        EXPECT_EQ(whole->pairsCompared(), 1.0) << what;
        EXPECT_EQ(test::graphDifferences(withParts, without, 15, what, "parts", "no parts"), 0u);
    }
    // Few points: one part and the missing values' own, batches of 700 queries (whole blocks of
    // 768) dealt to every device and device 0 again; and a share of the rows keeps no parts.
    std::vector<int> devices;
    for (int i = 0; i < cuda::deviceCount(); ++i) devices.push_back(i);
    devices.push_back(0);
    auto x = randomPoints(3001, 24, 17, 3);
    for (size_t i = 0; i < 3001; i += 101) x[i * 24 + 5] = INFINITY;
    const Matrix m = matrixOf(x, 3001, 24);
    expectSameGraph(m, 12, KnnMetric::Euclidean, "parts of few points",
                    cuda::makeCudaKnnGraphBuilder(devices, 700, 1000));
    auto share = cuda::makeCudaKnnGraphBuilder({0}, 0, 1000);
    const KnnGraph part = share->buildRows(m, 12, KnnMetric::Euclidean, 100, 2000);
    EXPECT_EQ(share->pairsCompared(), 1.0);
    const KnnGraph all = knnGraph(m, 12, KnnMetric::Euclidean);
    for (size_t i = 0; i < 1900 * 12; ++i)
        ASSERT_EQ(part.neighbours[i], all.neighbours[100 * 12 + i]) << 100 + i / 12;
}

void expectSameScores(const std::vector<float>& high, size_t n, size_t d,
                      const std::vector<float>& low, size_t sample, const std::string& what,
                      size_t k = 10) {
    QualityParams params;
    params.k = k;
    params.sampleSize = sample;
    const QualityScores cpu = scoreEmbedding(high.data(), n, d, low.data(), params);
    const QualityScores gpu =
        cuda::makeCudaQualityScorer()->score(high.data(), n, d, low.data(), params);
    EXPECT_EQ(gpu.trustworthiness, cpu.trustworthiness) << what;
    EXPECT_EQ(gpu.knnPreservation, cpu.knnPreservation) << what;
    EXPECT_EQ(gpu.points, cpu.points) << what;
    EXPECT_EQ(gpu.keptPerPoint, cpu.keptPerPoint) << what;
}

TEST(CudaQuality, EqualsTheCpuScoresOnEveryShape) {
    SEPAL_REQUIRE_GPU();
    struct Shape {
        size_t n, d, sample;
    };
    for (const Shape s : {Shape{3000, 3, 0}, Shape{2500, 16, 0}, Shape{4000, 40, 1500}}) {
        const auto high = randomPoints(s.n, s.d, uint32_t(s.n), 5);
        // A picture that keeps some neighbourhoods and tears others: two data columns, one
        // scrambled for a third of the cells.
        std::vector<float> low(2 * s.n);
        for (size_t i = 0; i < s.n; ++i) {
            low[2 * i] = high[i * s.d];
            low[2 * i + 1] = i % 3 == 0 ? high[((i * 7919) % s.n) * s.d + 1] : high[i * s.d + 1];
        }
        expectSameScores(high, s.n, s.d, low, s.sample,
                         "n=" + std::to_string(s.n) + " d=" + std::to_string(s.d));
    }
    // Ties everywhere: small integers in both spaces, in 3 columns (the difference form's ranks)
    // and in 12 (the tensor cores' split products, where many keys are too close to call).
    const size_t n = 2000;
    for (size_t d : {size_t(3), size_t(12)}) {
        std::vector<float> grid(n * d), flat(2 * n);
        for (size_t i = 0; i < n; ++i) {
            for (size_t c = 0; c < d; ++c) grid[i * d + c] = float((i * (c + 3) + c) % 7);
            flat[2 * i] = float(i % 5), flat[2 * i + 1] = float((i / 5) % 4);
        }
        expectSameScores(grid, n, d, flat, 0, "integer grids, d=" + std::to_string(d));
    }
}

TEST(CudaQuality, TensorRanksEqualTheCpuFarFromTheOriginAndForEveryWidth) {
    SEPAL_REQUIRE_GPU();
    // The split products' intervals are widest against the rows' norms: data far from the
    // origin, torn pictures, duplicated cells, and every k-step count and target width.
    struct Shape {
        size_t n, d, k;
        float offset;
    };
    for (const Shape s :
         {Shape{2600, 9, 5, 1000.0f}, Shape{2600, 32, 10, 0.0f}, Shape{2600, 32, 16, 50.0f},
          Shape{2100, 64, 12, 0.0f}, Shape{2300, 48, 3, 7.0f}}) {
        auto high = randomPoints(s.n, s.d, uint32_t(s.n + s.d), 5);
        for (size_t i = 0; i < s.n; ++i) {
            for (size_t c = 0; c < s.d; ++c) high[i * s.d + c] += s.offset;
            // Every 13th cell a copy of the one before it.
            if (i % 13 == 0 && i > 0)
                std::copy_n(high.begin() + long((i - 1) * s.d), s.d, high.begin() + long(i * s.d));
        }
        std::vector<float> low(2 * s.n);
        for (size_t i = 0; i < s.n; ++i) {
            low[2 * i] = high[i * s.d];
            low[2 * i + 1] = i % 4 == 0 ? high[((i * 7919) % s.n) * s.d + 1] : high[i * s.d + 1];
        }
        expectSameScores(high, s.n, s.d, low, 0,
                         "d=" + std::to_string(s.d) + " k=" + std::to_string(s.k) +
                             " offset=" + std::to_string(s.offset),
                         s.k);
    }
}

TEST(CudaQuality, ACrowdOfEqualCellsOverflowsTheExactKeysQueue) {
    SEPAL_REQUIRE_GPU();
    // Nine cells in ten at one point: nearly every product of a warp lies inside an interval,
    // hundreds per 32 references, more than a warp's queue holds at once.
    const size_t n = 1800, d = 16;
    auto high = randomPoints(n, d, 77, 5);
    for (size_t i = 0; i < n; ++i)
        if (i % 10 != 0) std::fill_n(high.begin() + long(i * d), d, 1.5f);
    std::vector<float> low(2 * n);
    for (size_t i = 0; i < n; ++i) low[2 * i] = float(i % 37), low[2 * i + 1] = float(i % 41);
    expectSameScores(high, n, d, low, 0, "a crowd at one point");
}

/// Cells in clusters (every 17th a copy of the one before), and a picture that keeps each
/// cluster together: the cluster's own place, and the cell's offset within it.
struct ClusteredCells {
    std::vector<float> high, kept;
};

ClusteredCells clusteredCells(size_t n, size_t d, size_t clusters, uint32_t seed) {
    std::mt19937 rng{seed};
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> centre(clusters * d);
    ClusteredCells cells{std::vector<float>(n * d), std::vector<float>(2 * n)};
    for (float& c : centre) c = 4.0f * normal(rng);
    for (size_t i = 0; i < n; ++i) {
        const size_t c = rng() % clusters;
        for (size_t t = 0; t < d; ++t) cells.high[i * d + t] = centre[c * d + t] + normal(rng);
        if (i % 17 == 0 && i > 0)
            std::copy_n(cells.high.begin() + long((i - 1) * d), d,
                        cells.high.begin() + long(i * d));
        cells.kept[2 * i] = 10.0f * float(c % 4) + cells.high[i * d] - centre[c * d];
        cells.kept[2 * i + 1] = 10.0f * float(c / 4) + cells.high[i * d + 1] - centre[c * d + 1];
    }
    return cells;
}

/// The GPU's scores with the rank parts from `partsFrom` cells on.
QualityScores gpuScores(const std::vector<float>& high, size_t n, size_t d,
                        const std::vector<float>& low, const QualityParams& params,
                        const char* partsFrom) {
    const ScopedEnv from("SEPAL_KNN_PARTS_FROM", partsFrom);
    return cuda::makeCudaQualityScorer()->score(high.data(), n, d, low.data(), params);
}

TEST(CudaQuality, PartsCountWholePartsAndEqualTheCpu) {
    SEPAL_REQUIRE_GPU();
    // 30,000 cells in 10 clusters, gathered into 7 k-means parts (the threshold lowered for the
    // test): a picture that keeps each cluster together (some parts lie wholly farther than
    // every target of a warp, and are not scanned), one that tears a third of the cells (far
    // targets, past which whole parts lie nearer), duplicated cells, rows of 20 and 32 columns.
    // (At 10^6 clustered cells of 32 columns, 3 % of the pairs are scanned: sepal-bench trust.)
    const size_t n = 30000, clusters = 10;
    for (const size_t d : {size_t(32), size_t(20)}) {
        const ClusteredCells cells = clusteredCells(n, d, clusters, uint32_t(d));
        std::vector<float> torn(2 * n);
        for (size_t i = 0; i < n; ++i) {
            const size_t from = i % 3 == 0 ? (i * 7919) % n : i;
            torn[2 * i] = cells.kept[2 * i], torn[2 * i + 1] = cells.kept[2 * from + 1];
        }
        for (const bool tear : {false, true}) {
            if (tear && d != 32) continue;
            const std::vector<float>& low = tear ? torn : cells.kept;
            const std::string what =
                std::string(tear ? "torn" : "kept") + ", d " + std::to_string(d);
            QualityParams params;
            params.k = 10;
            params.sampleSize = 0;
            const QualityScores cpu = scoreEmbedding(cells.high.data(), n, d, low.data(), params);
            for (const char* from : {"10000", "100000000"}) {
                const QualityScores gpu = gpuScores(cells.high, n, d, low, params, from);
                const bool parts = std::string(from) == "10000";
                EXPECT_EQ(gpu.trustworthiness, cpu.trustworthiness) << what << " parts " << parts;
                EXPECT_EQ(gpu.knnPreservation, cpu.knnPreservation) << what << " parts " << parts;
                EXPECT_EQ(gpu.keptPerPoint, cpu.keptPerPoint) << what << " parts " << parts;
                if (!parts)
                    EXPECT_EQ(gpu.pairsCompared, 1.0) << what;
                else if (!tear)
                    EXPECT_LT(gpu.pairsCompared, 0.8) << what;
                EXPECT_GT(gpu.pairsCompared, 0.0) << what << " parts " << parts;
            }
        }
    }
}

TEST(CudaQuality, PartsOfASmallSetEqualTheCpu) {
    SEPAL_REQUIRE_GPU();
    // Three parts of 12,300 cells in three clusters: the case small enough for racecheck
    // (scripts/gpu-check.sh), where the 30,000 cells above take minutes.
    const size_t n = 12300, d = 32;
    const ClusteredCells cells = clusteredCells(n, d, 3, 5);
    QualityParams params;
    params.k = 10;
    params.sampleSize = 0;
    const QualityScores cpu = scoreEmbedding(cells.high.data(), n, d, cells.kept.data(), params);
    const QualityScores gpu = gpuScores(cells.high, n, d, cells.kept, params, "4000");
    EXPECT_EQ(gpu.trustworthiness, cpu.trustworthiness);
    EXPECT_EQ(gpu.knnPreservation, cpu.knnPreservation);
    EXPECT_EQ(gpu.keptPerPoint, cpu.keptPerPoint);
    EXPECT_LT(gpu.pairsCompared, 1.0) << "some warp leaves out a part that lies past its targets";
}

TEST(CudaQuality, PartsGiveWayToTheWholeScanWhereTargetsCutThemAll) {
    SEPAL_REQUIRE_GPU();
    // Every cell torn from its neighbours, over more than one launch of cells: the first
    // launch's warps scan nearly every part, so the later ones scan every tile, still naming
    // the cells through the parts' layout. The scores are those of the scan without parts
    // (which the tests above hold equal to the CPU's).
    const size_t n = 70000, d = 16;
    const auto high = randomPoints(n, d, 91, 12);
    std::vector<float> low(2 * n);
    for (size_t i = 0; i < n; ++i) {
        const size_t from = (i * 7919 + 11) % n;
        low[2 * i] = high[from * d], low[2 * i + 1] = high[from * d + 1];
    }
    QualityParams params;
    params.k = 10;
    params.sampleSize = 0;
    const QualityScores with = gpuScores(high, n, d, low, params, "10000");
    const QualityScores without = gpuScores(high, n, d, low, params, "100000000");
    EXPECT_EQ(with.trustworthiness, without.trustworthiness);
    EXPECT_EQ(with.knnPreservation, without.knnPreservation);
    EXPECT_EQ(with.keptPerPoint, without.keptPerPoint);
    EXPECT_GT(with.pairsCompared, 0.85) << "the torn cells' targets cut nearly every part";
    EXPECT_EQ(without.pairsCompared, 1.0);
}

}  // namespace
}  // namespace sepal::test
