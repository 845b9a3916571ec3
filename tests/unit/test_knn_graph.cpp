// The k-NN graph of every point against a plain brute force written apart (double precision,
// every pair, sorted by distance then index): random data, exact ties (duplicated points and an
// integer grid), data far from the origin, every metric, and thread counts.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/common/error.h"
#include "core/knn/knn_graph.h"
#include "knn_graph_compare.h"

namespace sepal {
namespace {

double bruteDistance(const float* a, const float* b, size_t d, KnnMetric metric) {
    double s = 0;
    if (metric == KnnMetric::Euclidean) {
        for (size_t c = 0; c < d; ++c) s += (double(a[c]) - b[c]) * (double(a[c]) - b[c]);
        return s;  // compared squared; the graph reports the root
    }
    if (metric == KnnMetric::Manhattan) {
        for (size_t c = 0; c < d; ++c) s += std::fabs(double(a[c]) - b[c]);
        return s;
    }
    double ma = 0, mb = 0;
    if (metric == KnnMetric::Pearson) {
        for (size_t c = 0; c < d; ++c) ma += a[c], mb += b[c];
        ma /= double(d), mb /= double(d);
    }
    double dot = 0, na = 0, nb = 0;
    for (size_t c = 0; c < d; ++c) {
        const double x = a[c] - ma, y = b[c] - mb;
        dot += x * y, na += x * x, nb += y * y;
    }
    return 1.0 - (na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0.0);
}

/// The graph's distances and neighbours equal the brute force's, up to float rounding of the
/// distance and the order within exact ties (which must then be by index).
void expectBrute(const Matrix& m, size_t k, KnnMetric metric) {
    const KnnGraph g = knnGraph(m, k, metric);
    const size_t n = m.rows;
    std::vector<double> dist(n);
    std::vector<uint32_t> order(n);
    for (size_t q = 0; q < n; ++q) {
        for (size_t r = 0; r < n; ++r) dist[r] = bruteDistance(m.row(q), m.row(r), m.cols, metric);
        order.resize(n);
        std::iota(order.begin(), order.end(), 0u);
        order.erase(order.begin() + long(q));
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t x, uint32_t y) { return dist[x] < dist[y]; });
        for (size_t j = 0; j < k; ++j) {
            const double want =
                metric == KnnMetric::Euclidean ? std::sqrt(dist[order[j]]) : dist[order[j]];
            ASSERT_EQ(g.neighbours[q * k + j], order[j])
                << "point " << q << " neighbour " << j << " distance " << want << " vs graph "
                << g.distances[q * k + j];
            ASSERT_NEAR(g.distances[q * k + j], want, 1e-5 * std::max(1.0, std::fabs(want)));
        }
    }
}

Matrix randomPoints(size_t n, size_t d, uint32_t seed, float offset) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> noise(0.f, 1.f);
    Matrix m(n, d);
    for (float& v : m.values) v = offset + noise(rng);
    return m;
}

TEST(KnnGraph, EqualsBruteForceForEveryMetric) {
    const Matrix m = randomPoints(300, 7, 1, 0.f);
    for (KnnMetric metric :
         {KnnMetric::Euclidean, KnnMetric::Cosine, KnnMetric::Pearson, KnnMetric::Manhattan})
        expectBrute(m, 10, metric);
}

TEST(KnnGraph, TiesGoToTheLowerIndex) {
    // An integer grid (many equal distances) with every point twice.
    Matrix m(2 * 81, 2);
    for (size_t i = 0; i < 81; ++i)
        for (size_t copy = 0; copy < 2; ++copy) {
            m.at(2 * i + copy, 0) = float(i % 9);
            m.at(2 * i + copy, 1) = float(i / 9);
        }
    expectBrute(m, 6, KnnMetric::Euclidean);
    expectBrute(m, 6, KnnMetric::Manhattan);
    const KnnGraph g = knnGraph(m, 1, KnnMetric::Euclidean);
    EXPECT_EQ(g.neighbours[0], 1u);  // its duplicate, at distance 0
    EXPECT_EQ(g.distances[0], 0.f);
}

TEST(KnnGraph, DataFarFromTheOriginKeepsItsOrder) {
    // Differences of 1e-3 on values of 1e4: the expanded form |x|^2 + |y|^2 - 2xy in float
    // loses them; the difference form does not.
    Matrix m = randomPoints(200, 5, 2, 0.f);
    for (float& v : m.values) v = 1e4f + 1e-3f * v;
    expectBrute(m, 8, KnnMetric::Euclidean);
}

TEST(KnnGraph, ThreadsChangeNothingAndMissingValuesAreLeftOut) {
    Matrix m = randomPoints(500, 4, 3, 0.f);
    m.at(7, 2) = NAN;
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const KnnGraph one = knnGraph(m, 5, KnnMetric::Euclidean);
    omp_set_num_threads(std::max(2, threads));
    const KnnGraph many = knnGraph(m, 5, KnnMetric::Euclidean);
    omp_set_num_threads(threads);
    EXPECT_EQ(one.neighbours, many.neighbours);
    EXPECT_EQ(one.neighbours[7 * 5], 0xFFFFFFFFu);
    for (uint32_t v : one.neighbours) EXPECT_NE(v, 7u);
    EXPECT_THROW(knnGraph(m, 0, KnnMetric::Euclidean), InputError);
    EXPECT_THROW(knnGraph(m, 500, KnnMetric::Euclidean), InputError);
    EXPECT_THROW(knnMetricNamed("chebyshev"), InputError);
}

// The euclidean graph's single-precision candidates (euclideanNeighbours) give exactNeighbours'
// graph, index for index and bit for bit: clustered data across several reference blocks, an
// integer grid full of ties, data far from the origin, missing values.
void expectSameAsExact(const Matrix& m, size_t k, const char* what) {
    KnnGraph exact = emptyKnnGraph(m.rows, k);
    exactNeighbours(knnRows(m, KnnMetric::Euclidean), rowsOf(exact), exact);
    const KnnGraph fast = knnGraph(m, k, KnnMetric::Euclidean);
    ASSERT_EQ(fast.neighbours.size(), exact.neighbours.size()) << what;
    EXPECT_EQ(test::graphDifferences(fast, exact, k, what, "candidates", "exact"), 0u) << what;
}

TEST(KnnGraph, SinglePrecisionCandidatesGiveTheExactGraph) {
    Matrix blobs(5000, 20);
    std::mt19937 rng(5);
    std::normal_distribution<float> noise(0.f, 1.f);
    for (size_t i = 0; i < blobs.rows; ++i)
        for (size_t c = 0; c < blobs.cols; ++c)
            blobs.at(i, c) = float((i % 7) * 3) * (c % 2 ? 1.f : -1.f) + noise(rng);
    expectSameAsExact(blobs, 15, "clustered, three blocks of references");
    Matrix grid(3000, 3);
    for (size_t i = 0; i < grid.rows; ++i)
        for (size_t c = 0; c < 3; ++c) grid.at(i, c) = float((i * (c + 3) + c) % 5);
    expectSameAsExact(grid, 12, "an integer grid (ties everywhere)");
    expectSameAsExact(randomPoints(2500, 8, 4, 1e4f), 10, "far from the origin");
    Matrix holes = randomPoints(2200, 6, 6, 0.f);
    for (size_t i = 0; i < holes.rows; i += 37) holes.at(i, i % 6) = NAN;
    expectSameAsExact(holes, 9, "missing values");
    expectSameAsExact(randomPoints(12, 3, 7, 0.f), 10, "fewer points than candidates");
    // Hundreds of points on one sphere around the centre: single precision cannot order their
    // distances, so the centre's candidates are proven incomplete and it is found exactly.
    Matrix ring(400, 3);
    for (size_t i = 1; i < ring.rows; ++i) {
        const double a = double(i) * 2.399963, z = 1.0 - 2.0 * double(i) / double(ring.rows);
        const double r = std::sqrt(1.0 - z * z);
        ring.at(i, 0) = float(r * std::cos(a)), ring.at(i, 1) = float(r * std::sin(a));
        ring.at(i, 2) = float(z);
    }
    expectSameAsExact(ring, 5, "points on a sphere around the first");
}

TEST(KnnGraph, DotProductCandidatesOfWideRowsGiveTheExactGraph) {
    // Rows of 64 columns and more take the dot-product form: clustered data across reference
    // blocks, data far from the origin (centred first), ties, missing values, and a sphere whose
    // distances no single-precision form can order.
    // 2,200 rows: two blocks of 2,048 references (the exact graph it is checked against costs
    // the square of the rows, half a minute at 3,000 under the sanitizers).
    Matrix blobs(2200, 96);
    std::mt19937 rng(8);
    std::normal_distribution<float> noise(0.f, 1.f);
    for (size_t i = 0; i < blobs.rows; ++i)
        for (size_t c = 0; c < blobs.cols; ++c)
            blobs.at(i, c) = float((i % 5) * 2) * (c % 3 ? 1.f : -1.f) + noise(rng);
    expectSameAsExact(blobs, 15, "clustered, 96 columns, several blocks of references");
    expectSameAsExact(randomPoints(1500, 80, 4, 1e4f), 10, "far from the origin, 80 columns");
    Matrix grid(1200, 70);
    for (size_t i = 0; i < grid.rows; ++i)
        for (size_t c = 0; c < grid.cols; ++c) grid.at(i, c) = float((i * (c + 3) + c) % 3);
    expectSameAsExact(grid, 12, "an integer grid of 70 columns (ties everywhere)");
    Matrix holes = randomPoints(900, 64, 6, 0.f);
    for (size_t i = 0; i < holes.rows; i += 29) holes.at(i, i % 64) = NAN;
    expectSameAsExact(holes, 9, "missing values, 64 columns");
    Matrix sphere(300, 64);
    std::normal_distribution<double> direction(0.0, 1.0);
    for (size_t i = 1; i < sphere.rows; ++i) {
        std::vector<double> v(64);
        double norm = 0;
        for (double& x : v) norm += (x = direction(rng)) * x;
        for (size_t c = 0; c < 64; ++c) sphere.at(i, c) = float(5.0 * v[c] / std::sqrt(norm));
    }
    expectSameAsExact(sphere, 5, "points on a sphere around the first, 64 columns");
    // A share of the rows (one query after another, not the whole graph's pairs) and one thread
    // (a single list, no merge) give the whole graph's rows.
    const KnnGraph whole = knnGraph(blobs, 15, KnnMetric::Euclidean);
    const KnnGraph part =
        makeCpuKnnGraphBuilder()->buildRows(blobs, 15, KnnMetric::Euclidean, 500, 1700);
    for (size_t i = 0; i < part.neighbours.size(); ++i)
        ASSERT_EQ(part.neighbours[i], whole.neighbours[500 * 15 + i]) << 500 + i / 15;
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const KnnGraph single = knnGraph(blobs, 15, KnnMetric::Euclidean);
    omp_set_num_threads(threads);
    EXPECT_EQ(single.neighbours, whole.neighbours);
    EXPECT_EQ(single.distances, whole.distances);
}

TEST(KnnGraph, SquaredKeysFromFloatRowsAreKnnKeysBitForBit) {
    const Matrix m = randomPoints(50, 37, 12, 3e3f);
    const KnnRows rows = knnRows(m, KnnMetric::Euclidean);
    std::vector<uint32_t> others(49);
    std::iota(others.begin(), others.end(), 1u);
    std::vector<double> four(49), fromFloats(49);
    knnKeys(rows, 0, others.data(), others.size(), four.data());
    // 49 keys: twelve of four lanes and one alone.
    squaredKeys(m, 0, others.data(), others.size(), fromFloats.data());
    for (uint32_t j = 1; j < 50; ++j) {
        const double key = knnKey(rows, 0, j);
        EXPECT_EQ(squaredKey(m.row(0), m.row(j), m.cols), key) << j;
        EXPECT_EQ(four[j - 1], key) << j;
        EXPECT_EQ(fromFloats[j - 1], key) << j;
    }
}

TEST(KnnGraph, ABuilderFillsTheRowsItIsGivenAsTheWholeGraphDoes) {
    // A share of the rows, as one MPI rank finds them: the whole graph's rows, and only those.
    const Matrix m = randomPoints(400, 6, 9, 0.f);
    const KnnGraph whole = knnGraph(m, 7, KnnMetric::Manhattan);
    const KnnGraph part = makeCpuKnnGraphBuilder()->buildRows(m, 7, KnnMetric::Manhattan, 150, 290);
    ASSERT_EQ(part.first, 150u);
    ASSERT_EQ(part.rows(), 140u);
    for (size_t i = 0; i < 140 * 7; ++i) {
        ASSERT_EQ(part.neighbours[i], whole.neighbours[150 * 7 + i]) << 150 + i / 7;
        ASSERT_EQ(part.distances[i], whole.distances[150 * 7 + i]);
    }
    EXPECT_EQ(makeCpuKnnGraphBuilder()->buildRows(m, 7, KnnMetric::Manhattan, 0, 0).rows(), 0u);
    EXPECT_THROW(makeCpuKnnGraphBuilder()->buildRows(m, 7, KnnMetric::Manhattan, 300, 200),
                 InputError);
    EXPECT_THROW(makeCpuKnnGraphBuilder()->buildRows(m, 7, KnnMetric::Manhattan, 0, 401),
                 InputError);
}

}  // namespace
}  // namespace sepal
