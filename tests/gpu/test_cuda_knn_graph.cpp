// The GPU's k-NN graph of every point equals the CPU's (knnGraph), index for index and distance
// for distance, on every metric, with ties, far from the origin and with missing values.

#include <gtest/gtest.h>

#include <cmath>

#include "core/common/matrix.h"
#include "core/knn/knn_graph.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

Matrix matrixOf(const std::vector<float>& x, size_t n, size_t d) {
    Matrix m(n, d);
    std::copy(x.begin(), x.end(), m.values.begin());
    return m;
}

void expectSameGraph(const Matrix& m, size_t k, KnnMetric metric, const std::string& what) {
    const KnnGraph cpu = knnGraph(m, k, metric);
    auto builder = cuda::makeCudaKnnGraphBuilder();
    const KnnGraph gpu = builder->build(m, k, metric);
    ASSERT_EQ(gpu.neighbours.size(), cpu.neighbours.size()) << what;
    size_t differ = 0;
    for (size_t i = 0; i < cpu.neighbours.size(); ++i) {
        const bool same = gpu.neighbours[i] == cpu.neighbours[i] &&
                          (gpu.distances[i] == cpu.distances[i] ||
                           (std::isnan(gpu.distances[i]) && std::isnan(cpu.distances[i])));
        if (!same && differ++ < 3)
            ADD_FAILURE() << what << ": point " << i / k << " neighbour " << i % k << ": GPU "
                          << gpu.neighbours[i] << " at " << gpu.distances[i] << ", CPU "
                          << cpu.neighbours[i] << " at " << cpu.distances[i];
    }
    EXPECT_EQ(differ, 0u) << what << " (" << builder->redone() << " found again on the CPU)";
}

TEST(CudaKnnGraph, EqualsTheCpuGraphForEveryMetricAndShape) {
    SEPAL_REQUIRE_GPU();
    const KnnMetric metrics[] = {KnnMetric::Euclidean, KnnMetric::Manhattan, KnnMetric::Cosine,
                                 KnnMetric::Pearson};
    const std::string names[] = {"euclidean", "manhattan", "cosine", "pearson"};
    struct Shape {
        size_t n, d, k;
    };
    // Small and wide rows (one and several column chunks), k within and beyond 24.
    for (const Shape s :
         {Shape{3001, 5, 15}, Shape{2500, 32, 15}, Shape{1800, 70, 10}, Shape{2200, 12, 40}})
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

}  // namespace
}  // namespace sepal::test
