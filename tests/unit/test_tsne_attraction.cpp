// The t-SNE-like polish's attraction (core/pipeline/tsne_attraction.h): the AVX2 and portable
// paths give the same bits, and both the sums' value.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/pipeline/tsne_attraction.h"

namespace sepal {
namespace {

TEST(TsneAttraction, BothPathsGiveTheSameBitsAndTheSums) {
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 4.0f);
    std::uniform_real_distribution<float> uniform(0.0f, 1e-3f);
    const size_t cells = 500;
    std::vector<float> pos(2 * cells);
    for (float& v : pos) v = normal(rng);
    // Rows of every length from 0 to 27 (whole and partial groups of eight).
    std::vector<uint32_t> column;
    std::vector<float> value;
    std::vector<size_t> offset{0};
    for (size_t c = 0; c < cells; ++c) {
        for (size_t e = 0; e < c % 28; ++e) {
            column.push_back(uint32_t(rng() % cells));
            value.push_back(uniform(rng));
        }
        offset.push_back(column.size());
    }
    for (size_t c = 0; c < cells; ++c) {
        float ax[2], ay[2];
        for (int path = 0; path < 2; ++path) {
            useTsneAttractionAvx2(path == 0);
            tsneAttraction(pos.data(), column.data(), value.data(), offset[c], offset[c + 1],
                           uint32_t(c), ax[path], ay[path]);
        }
        useTsneAttractionAvx2(true);
        EXPECT_EQ(ax[0], ax[1]) << "cell " << c;
        EXPECT_EQ(ay[0], ay[1]) << "cell " << c;
        double sx = 0, sy = 0, scale = 0;
        for (size_t e = offset[c]; e < offset[c + 1]; ++e) {
            const double dx = double(pos[2 * c]) - pos[2 * column[e]];
            const double dy = double(pos[2 * c + 1]) - pos[2 * column[e] + 1];
            const double w = value[e] / (1.0 + dx * dx + dy * dy);
            sx += w * dx, sy += w * dy, scale += std::abs(w) * (std::abs(dx) + std::abs(dy));
        }
        EXPECT_NEAR(ax[0], sx, 1e-6 * scale + 1e-30) << "cell " << c;
        EXPECT_NEAR(ay[0], sy, 1e-6 * scale + 1e-30) << "cell " << c;
    }
}

}  // namespace
}  // namespace sepal
