// The plane's k-d tree graph equals the brute-force graph (knnGraph) neighbour for neighbour and
// distance for distance: spread and clustered cells, exact ties (an integer grid, duplicates),
// cells far from the origin, missing values, and k near the number of cells.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "core/common/error.h"
#include "core/knn/knn_graph.h"
#include "core/knn/plane_knn.h"
#include "knn_graph_compare.h"

namespace sepal {
namespace {

void expectSameAsBruteForce(const Matrix& m, size_t k, const std::string& what) {
    const KnnGraph brute = knnGraph(m, k, KnnMetric::Euclidean);
    const KnnGraph tree = planeKnnGraph(m, k);
    ASSERT_EQ(tree.neighbours.size(), brute.neighbours.size()) << what;
    EXPECT_EQ(test::graphDifferences(tree, brute, k, what, "tree", "brute force"), 0u) << what;
}

TEST(PlaneKnn, EqualsTheBruteForceGraph) {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const size_t n = 2000;
    Matrix spread(n, 2), clusters(n, 2), far(n, 2), grid(n, 2), missing(n, 2);
    for (size_t i = 0; i < n; ++i) {
        const float x = normal(rng), y = normal(rng);
        spread.row(i)[0] = x, spread.row(i)[1] = y;
        // Tight clusters, as EmbedSOM draws populations, some cells on exactly the same spot.
        const float cx = float(i % 7) * 5.0f, cy = float(i % 3) * 5.0f;
        clusters.row(i)[0] = i % 11 == 0 ? cx : cx + 0.01f * x;
        clusters.row(i)[1] = i % 11 == 0 ? cy : cy + 0.01f * y;
        far.row(i)[0] = 1e4f + x, far.row(i)[1] = -3e4f + 0.5f * y;
        grid.row(i)[0] = float(i % 13), grid.row(i)[1] = float((i / 13) % 9);
        missing.row(i)[0] = i % 17 == 0 ? std::numeric_limits<float>::quiet_NaN() : x;
        missing.row(i)[1] = i % 29 == 0 ? std::numeric_limits<float>::infinity() : y;
    }
    for (size_t k : {size_t(1), size_t(10), size_t(40)}) {
        const std::string kk = " k=" + std::to_string(k);
        expectSameAsBruteForce(spread, k, "spread" + kk);
        expectSameAsBruteForce(clusters, k, "clusters with duplicates" + kk);
        expectSameAsBruteForce(far, k, "far from the origin" + kk);
        expectSameAsBruteForce(grid, k, "integer grid" + kk);
        expectSameAsBruteForce(missing, k, "missing values" + kk);
    }
    // Enough cells for the tree's halves to be built on several cores (ranges of more than
    // kParallelPoints = 8,192 cells), and few enough for the brute force's square.
    Matrix many(9000, 2);
    for (size_t i = 0; i < many.rows; ++i)
        many.row(i)[0] = normal(rng), many.row(i)[1] = float(i % 50) * 0.1f;
    expectSameAsBruteForce(many, 10, "9000 cells");
    // Every cell a neighbour of every other.
    Matrix few(12, 2);
    for (size_t i = 0; i < 12; ++i) few.row(i)[0] = float(i % 4), few.row(i)[1] = float(i % 3);
    expectSameAsBruteForce(few, 11, "k = n - 1");
}

TEST(PlaneKnn, RefusesWhatItCannotDo) {
    EXPECT_THROW(planeKnnGraph(Matrix(10, 3), 2), InputError);
    EXPECT_THROW(planeKnnGraph(Matrix(10, 2), 10), InputError);
}

}  // namespace
}  // namespace sepal
