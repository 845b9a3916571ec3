// t-SNE's repulsion through the grid against the exact O(n^2) sums: the normaliser Z and every
// cell's force, on clustered cells spread as a t-SNE picture is; a cell alone feels nothing; two
// cells push each other equally and oppositely; the thread count changes nothing.

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "core/pipeline/grid_repulsion.h"

namespace sepal {
namespace {

struct Exact {
    std::vector<double> x, y;
    double z = 0;
};

Exact exactSums(const std::vector<float>& pos, const std::vector<uint32_t>& cells) {
    Exact e;
    e.x.assign(cells.size(), 0);
    e.y.assign(cells.size(), 0);
    for (size_t a = 0; a < cells.size(); ++a)
        for (size_t b = 0; b < cells.size(); ++b) {
            if (a == b) continue;
            const double dx = double(pos[2 * cells[a]]) - pos[2 * cells[b]];
            const double dy = double(pos[2 * cells[a] + 1]) - pos[2 * cells[b] + 1];
            const double w = 1.0 / (1.0 + dx * dx + dy * dy);
            e.z += w;
            e.x[a] += w * w * dx;
            e.y[a] += w * w * dy;
        }
    return e;
}

/// n cells in eight Gaussian blobs over about 60 units, as t-SNE spreads a few thousand cells;
/// every third index left out of the listed cells (their positions must not count).
void clustered(size_t n, std::vector<float>& pos, std::vector<uint32_t>& cells) {
    std::mt19937 rng(5);
    std::normal_distribution<float> z(0, 1);
    pos.resize(2 * n);
    for (size_t i = 0; i < n; ++i) {
        const float cx = float(i % 8) * 8.0f - 28.0f, cy = float((i * 5) % 8) * 7.0f - 25.0f;
        pos[2 * i] = cx + 2.5f * z(rng);
        pos[2 * i + 1] = cy + 2.5f * z(rng);
        if (i % 3 != 2) cells.push_back(uint32_t(i));
    }
}

TEST(GridRepulsion, AgreesWithTheExactSums) {
    std::vector<float> pos;
    std::vector<uint32_t> cells;
    clustered(3000, pos, cells);
    const Exact want = exactSums(pos, cells);
    double lastZ = 0, lastForce = 0;
    for (double spacing : {0.25, 0.5, 0.75}) {
        GridRepulsion grid(spacing);
        RepulsionSums got;
        grid.compute(pos.data(), cells, got);
        // The forces' error, as a share of their typical size.
        double err = 0, size = 0;
        for (size_t c = 0; c < cells.size(); ++c) {
            err += std::pow(got.x[c] - want.x[c], 2) + std::pow(got.y[c] - want.y[c], 2);
            size += want.x[c] * want.x[c] + want.y[c] * want.y[c];
        }
        const double zError = std::abs(got.z - want.z) / want.z, forceError = std::sqrt(err / size);
        std::printf("spacing %.2f: Z off by %.2e, forces by %.3f (rms share)\n", spacing, zError,
                    forceError);
        if (spacing == 0.25) {
            EXPECT_LT(zError, 2e-3);
            EXPECT_LT(forceError, 0.03);
        }
        EXPECT_GT(zError, lastZ) << spacing;
        EXPECT_GT(forceError, lastForce) << spacing;
        lastZ = zError, lastForce = forceError;
        EXPECT_GE(grid.side(), 64u);
    }
    // Bilinear spreading blurs the near field by about the spacing squared.
    EXPECT_LT(lastZ, 0.02);
    EXPECT_LT(lastForce, 0.2);
}

TEST(GridRepulsion, ACellAloneFeelsNothingAndTwoPushEachOtherApart) {
    GridRepulsion grid(0.75);
    RepulsionSums got;
    const std::vector<float> pos = {1.3f, -0.4f, 3.1f, 0.2f};
    grid.compute(pos.data(), {0}, got);
    EXPECT_EQ(got.z, 0.0);
    ASSERT_EQ(got.x.size(), 1u);
    EXPECT_EQ(got.x[0], 0.0);
    grid.compute(pos.data(), {0, 1}, got);
    const Exact want = exactSums(pos, {0, 1});
    EXPECT_NEAR(got.z, want.z, 0.05 * want.z);  // two cells 1.9 apart: 3% at this spacing
    EXPECT_NEAR(got.x[0], -got.x[1], 1e-9);
    EXPECT_NEAR(got.y[0], -got.y[1], 1e-9);
    EXPECT_LT(got.x[0], 0.0);  // the first cell lies left of the second: pushed further left
    EXPECT_NEAR(got.x[0], want.x[0], 0.1 * std::abs(want.x[0]));
}

TEST(GridRepulsion, ThreadsChangeNothing) {
    std::vector<float> pos;
    std::vector<uint32_t> cells;
    clustered(2000, pos, cells);
    RepulsionSums one, two;
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    GridRepulsion(0.75).compute(pos.data(), cells, one);
    omp_set_num_threads(2);
    GridRepulsion(0.75).compute(pos.data(), cells, two);
    omp_set_num_threads(threads);
    EXPECT_EQ(one.x, two.x);
    EXPECT_EQ(one.y, two.y);
    EXPECT_EQ(one.z, two.z);
}

}  // namespace
}  // namespace sepal
