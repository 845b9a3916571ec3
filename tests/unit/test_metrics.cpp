#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/common/error.h"
#include "core/metrics/quality.h"
#include "train_fixtures.h"

namespace sepal {

TEST(Metrics, TrustworthinessOfTheDocumentedCaseIsOneFifth) {
    // X = [0..4] and Y = [0, 2, 4, 1, 3] in one dimension; the 2D side has y = 0.
    const std::vector<float> x = {0, 1, 2, 3, 4};
    const std::vector<float> y = {0, 0, 2, 0, 4, 0, 1, 0, 3, 0};
    QualityParams p;
    p.k = 1;
    EXPECT_NEAR(trustworthiness(x.data(), 5, 1, y.data(), p), 0.2, 1e-12);
}

TEST(Metrics, IdentityEmbeddingScoresOneAndShufflingScoresLess) {
    const auto x = test::blobs(600, 2, 3, 11);
    QualityParams p;
    p.k = 10;
    const QualityScores same = scoreEmbedding(x.data(), 600, 2, x.data(), p);
    EXPECT_DOUBLE_EQ(same.trustworthiness, 1.0);
    EXPECT_DOUBLE_EQ(same.knnPreservation, 1.0);
    std::vector<size_t> perm(600);
    for (size_t i = 0; i < 600; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), std::mt19937(5));
    std::vector<float> shuffled(x.size());
    for (size_t i = 0; i < 600; ++i)
        shuffled[2 * i] = x[2 * perm[i]], shuffled[2 * i + 1] = x[2 * perm[i] + 1];
    const QualityScores bad = scoreEmbedding(x.data(), 600, 2, shuffled.data(), p);
    EXPECT_LT(bad.trustworthiness, 0.7);
    EXPECT_LT(bad.knnPreservation, 0.2);
}

TEST(Metrics, SubsampleIsSeededAndThreadCountIndependent) {
    const auto x = test::blobs(3000, 5, 4, 3);
    std::vector<float> y(3000 * 2);
    for (size_t i = 0; i < 3000; ++i) y[2 * i] = x[5 * i], y[2 * i + 1] = x[5 * i + 1];
    QualityParams p;
    p.k = 5;
    p.sampleSize = 700;
    omp_set_num_threads(1);
    const QualityScores one = scoreEmbedding(x.data(), 3000, 5, y.data(), p);
    omp_set_num_threads(2);
    const QualityScores two = scoreEmbedding(x.data(), 3000, 5, y.data(), p);
    EXPECT_EQ(one.points, 700u);
    EXPECT_EQ(one.trustworthiness, two.trustworthiness);
    EXPECT_EQ(one.knnPreservation, two.knnPreservation);
    p.seed = 2;
    EXPECT_NE(scoreEmbedding(x.data(), 3000, 5, y.data(), p).trustworthiness, one.trustworthiness);
    EXPECT_GT(one.trustworthiness, 0.5);
    EXPECT_LT(one.trustworthiness, 1.0);
}

TEST(Metrics, KTooLargeForTheSampleIsAnInputError) {
    const std::vector<float> x = {0, 1, 2, 3, 4};
    const std::vector<float> y = {0, 0, 1, 0, 2, 0, 3, 0, 4, 0};
    QualityParams p;
    p.k = 3;
    EXPECT_THROW(trustworthiness(x.data(), 5, 1, y.data(), p), InputError);
}

}  // namespace sepal
