// embed --balanced: the training sample takes as many events from a small sample as from a
// large one, so that the small one gets its share of landmarks.

#include <gtest/gtest.h>

#include <random>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/pipeline/embed_pipeline.h"

namespace sepal {
namespace {

TEST(BalancedTraining, ASmallSampleGetsItsShareOfLandmarks) {
    // Sample 0: 18,000 events around (0, 0); sample 1: 2,000 events around (10, 10).
    Matrix points(20000, 2);
    std::vector<int32_t> groups(20000);
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (size_t i = 0; i < points.rows; ++i) {
        groups[i] = i < 18000 ? 0 : 1;
        const float centre = groups[i] ? 10.0f : 0.0f;
        points.at(i, 0) = centre + normal(rng);
        points.at(i, 1) = centre + normal(rng);
    }
    EmbedSettings settings;
    settings.landmarks = {"kmeans", 0, 0, 40};
    settings.layout = "none";
    settings.trainSample = 4000;
    auto search = makeCpuNearestSearch();
    auto nearSmall = [](const LandmarkModel& m) {
        size_t n = 0;
        for (size_t j = 0; j < m.count(); ++j) n += m.high[j * 2] > 5.0f;
        return n;
    };
    const size_t plain = nearSmall(trainLandmarks(points, settings, *search));
    settings.balanceGroups = groups;
    const size_t balanced = nearSmall(trainLandmarks(points, settings, *search));
    EXPECT_LE(plain, 8u);      // about 10% of 40
    EXPECT_GE(balanced, 14u);  // about half
    settings.balanceGroups.pop_back();
    EXPECT_THROW(trainLandmarks(points, settings, *search), InputError);
}

}  // namespace
}  // namespace sepal
