#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/metrics/quality.h"
#include "core/model/landmark_edit.h"
#include "core/train/force_layout.h"
#include "core/train/init.h"
#include "core/train/landmark_graph.h"
#include "core/train/sampling.h"
#include "core/train/supervision.h"
#include "core/train/tsne_layout.h"
#include "core/train/umap_layout.h"
#include "train_fixtures.h"

namespace sepal {

namespace {

// Landmarks at blob points with a scrambled (random) 2D layout to refine.
LandmarkModel scrambled(size_t g, size_t d, uint64_t seed) {
    const auto x = test::blobs(g, d, 4, seed);
    LandmarkModel m;
    m.resize(g, d);
    m.high = x;
    SplitMix rng(seed + 100);
    for (float& v : m.low) v = static_cast<float>(10.0 * rng.uniform());
    return m;
}

const TrainingData kNoData{};

// Trustworthiness (k = 5) of the landmarks' 2D layout against their data-space positions.
double landmarkTrust(const LandmarkModel& m) {
    QualityParams q;
    q.k = 5;
    return trustworthiness(m.high.data(), m.count(), m.dim, m.low.data(), q);
}

}  // namespace

TEST(TrainGraph, NeighboursAreExactAndGraphIsSymmetric) {
    LandmarkModel m;
    m.resize(5, 1);
    m.high = {0.0f, 1.0f, 3.0f, 7.0f, 7.5f};
    std::vector<float> sq;
    const auto nn = landmarkNeighbours(m, 2, &sq);
    EXPECT_EQ(nn, (std::vector<uint32_t>{1, 2, 0, 2, 1, 0, 4, 2, 3, 2}));
    EXPECT_EQ(sq[0], 1.0f);
    buildLandmarkGraph(m, 1);
    EXPECT_EQ(m.edges, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 1}, {1, 2}, {3, 4}}));
}

TEST(TrainForce, EnergyFallsAndPinnedLandmarksStay) {
    LandmarkModel m = scrambled(120, 4, 1);
    setLocked(m, 7, kLockLow);
    const float px = m.low[14], py = m.low[15];
    ForceParams p;
    p.k = 6;
    p.springLength = 1.0f;
    p.iterations = 300;
    ForceLayoutTrainer layout(p);
    ASSERT_TRUE(layout.step(m, kNoData));
    const double first = layout.energy(m);
    while (layout.step(m, kNoData)) {
    }
    EXPECT_LT(layout.energy(m), 0.5 * first);
    EXPECT_EQ(m.low[14], px);
    EXPECT_EQ(m.low[15], py);
    EXPECT_DOUBLE_EQ(layout.progress(), 1.0);
    for (float v : m.low) EXPECT_TRUE(std::isfinite(v));
}

TEST(TrainForce, ThreadCountChangesNothing) {
    auto run = [](int threads) {
        omp_set_num_threads(threads);
        LandmarkModel m = scrambled(kParallelLandmarks + 10, 3, 2);
        ForceParams p;
        p.iterations = 40;
        ForceLayoutTrainer layout(p);
        while (layout.step(m, kNoData)) {
        }
        return m.low;
    };
    EXPECT_EQ(run(1), run(2));
}

TEST(TrainTsne, CalibratedRowsHaveThePerplexity) {
    std::vector<float> d(50), p(50);
    for (size_t j = 0; j < 50; ++j) d[j] = static_cast<float>(j * j) * 0.01f + 3.0f;
    calibrateRow(d.data(), 50, 10.0f, p.data());
    double h = 0.0, sum = 0.0;
    for (float v : p) h -= v > 0 ? v * std::log(v) : 0.0, sum += v;
    EXPECT_NEAR(sum, 1.0, 1e-5);
    EXPECT_NEAR(std::exp(h), 10.0, 0.01);
}

TEST(TrainTsne, MoreTiesAtTheNearestThanThePerplexityShareTheRow) {
    // Rows of landmarks on a coarse instrument's floor (a FACSCalibur file's 10-bit channels):
    // more landmarks at the same smallest distance than a perplexity of 10 can spread over, the
    // rest at distances from 1e-9 to 20 above it. No beta reaches the perplexity; each row must
    // stay finite, the ties sharing it. About one such row in seventy came out NaN (and the
    // layout of that file with it) when beta ran to infinity.
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> tieCount(11, 60), otherCount(50, 300);
    std::uniform_real_distribution<float> exponent(-9.0f, 1.3f);
    for (int row = 0; row < 400; ++row) {
        const size_t ties = size_t(tieCount(rng));
        std::vector<float> d(ties, 7.029065e-9f);
        for (int j = otherCount(rng); j > 0; --j)
            d.push_back(7.029065e-9f + std::pow(10.0f, exponent(rng)));
        std::vector<float> p(d.size());
        calibrateRow(d.data(), d.size(), 10.0f, p.data());
        double sum = 0.0;
        for (float v : p) {
            ASSERT_TRUE(std::isfinite(v)) << "row " << row;
            sum += v;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << row;
        for (size_t j = 1; j < ties; ++j) ASSERT_FLOAT_EQ(p[j], p[0]) << "row " << row;
        EXPECT_GT(p[0] * float(ties), 0.5f) << "row " << row;  // the ties hold most of it
    }
}

TEST(TrainTsne, CalibrationReachesThePerplexityOnHardRows) {
    // Rows where Newton's step leaves its bracket or has little slope: two tied groups, one
    // near point among far ones, distances over twelve orders of magnitude (16 at the smallest).
    const auto perplexityOf = [](const std::vector<float>& d, float perplexity) {
        std::vector<float> p(d.size());
        calibrateRow(d.data(), d.size(), perplexity, p.data());
        double h = 0.0;
        for (float v : p) h -= v > 0 ? v * std::log(v) : 0.0;
        return std::exp(h);
    };
    std::vector<float> ties(100, 4.0f);
    for (size_t j = 0; j < 30; ++j) ties[j] = 1.0f;
    EXPECT_NEAR(perplexityOf(ties, 40.0f), 40.0, 0.04);
    std::vector<float> outlier(100, 1e6f);
    outlier[7] = 0.5f;
    EXPECT_NEAR(perplexityOf(outlier, 30.0f), 30.0, 0.03);
    std::vector<float> wide(200);
    for (size_t j = 0; j < wide.size(); ++j) wide[j] = std::pow(10.0f, float(j % 13) - 6.0f);
    EXPECT_NEAR(perplexityOf(wide, 25.0f), 25.0, 0.03);
}

TEST(TrainTsne, DivergenceFallsSeparatesClustersAndIsDeterministic) {
    auto run = [](int threads, std::vector<double>* kl) {
        omp_set_num_threads(threads);
        LandmarkModel m = scrambled(kParallelLandmarks + 8, 5, 3);
        setLocked(m, 2, kLockLow);
        TsneParams p;
        p.perplexity = 15.0f;
        p.iterations = 240;
        p.exaggerationIters = 100;
        p.iterationsPerStep = 40;
        TsneLayoutTrainer t(p);
        t.prepare(m);
        if (kl) kl->push_back(t.divergence());
        while (t.step(m, kNoData))
            if (kl) kl->push_back(t.divergence());
        if (kl) kl->push_back(t.divergence());
        return m;
    };
    std::vector<double> kl;
    const LandmarkModel a = run(2, &kl);
    ASSERT_GE(kl.size(), 4u);
    EXPECT_LT(kl.back(), 0.6 * kl.front());
    EXPECT_GT(landmarkTrust(a), 0.9);
    // Past early exaggeration the divergence keeps falling.
    EXPECT_LT(kl.back(), kl[kl.size() / 2]);
    const LandmarkModel original = scrambled(kParallelLandmarks + 8, 5, 3);
    EXPECT_EQ(a.low[4], original.low[4]);
    EXPECT_EQ(a.low[5], original.low[5]);
    EXPECT_EQ(a.low, run(1, nullptr).low);
}

TEST(TrainUmap, MembershipStrengthsSumToTheTargetAtAnyScale) {
    // Distances far beyond the nearest neighbour (raw cytometry scales, or one close neighbour
    // and a gap): the weights must still sum to log2(k), not stall at the search's round limit.
    const size_t k = 15;
    const double target = std::log2(double(k));
    for (double scale : {1.0, 100.0, 1000.0, 1e5}) {
        std::vector<double> dist(k);
        for (size_t i = 0; i < k; ++i) dist[i] = scale * (1.0 + 0.1 * double(i));
        std::vector<float> w(k);
        membershipStrengths(dist.data(), k, target, w.data());
        double sum = 0;
        for (float x : w) sum += x;
        EXPECT_NEAR(sum, target, 1e-4) << "scale " << scale;
    }
    std::vector<double> gap(k);
    gap[0] = 0.5;
    for (size_t i = 1; i < k; ++i) gap[i] = 50.0 + double(i);
    std::vector<float> w(k);
    membershipStrengths(gap.data(), k, target, w.data());
    double sum = 0;
    for (float x : w) sum += x;
    EXPECT_NEAR(sum, target, 1e-4) << "a gap after the nearest";
}

TEST(TrainUmap, CurveFitMatchesTheKnownConstants) {
    const CurveParams c = fitCurve(0.1, 1.0);
    EXPECT_NEAR(c.a, 1.577, 0.01);
    EXPECT_NEAR(c.b, 0.895, 0.005);
}

TEST(TrainUmap, CrossEntropyFallsAndSameSeedSameLayout) {
    auto run = [](uint64_t seed, std::vector<double>* ce) {
        LandmarkModel m = scrambled(150, 4, 4);
        setLocked(m, 9, kLockLow);
        UmapParams p;
        p.epochs = 150;
        p.epochsPerStep = 25;
        p.seed = seed;
        UmapLayoutTrainer t(p);
        t.prepare(m);
        if (ce) ce->push_back(t.crossEntropy());
        while (t.step(m, kNoData))
            if (ce) ce->push_back(t.crossEntropy());
        if (ce) ce->push_back(t.crossEntropy());
        return m;
    };
    std::vector<double> ce;
    const LandmarkModel a = run(1, &ce);
    ASSERT_GE(ce.size(), 4u);
    EXPECT_LT(ce.back(), 0.85 * ce.front());
    EXPECT_GT(landmarkTrust(a), landmarkTrust(scrambled(150, 4, 4)) + 0.2);
    const LandmarkModel original = scrambled(150, 4, 4);
    EXPECT_EQ(a.low[18], original.low[18]);
    EXPECT_EQ(a.low, run(1, nullptr).low);
    EXPECT_NE(a.low, run(2, nullptr).low);
}

namespace {
// Labels that cut across the four blobs: the sign of a landmark's last coordinate relative to
// its blob (so each blob holds both labels, as a marker the layout does not see would).
std::vector<int32_t> crossingLabels(const LandmarkModel& m) {
    std::vector<int32_t> labels(m.count());
    for (size_t i = 0; i < m.count(); ++i) labels[i] = m.highRow(i)[m.dim - 1] > 0 ? 1 : 0;
    return labels;
}

double layoutSilhouette(const LandmarkModel& m, const std::vector<int32_t>& labels) {
    QualityParams q;
    q.sampleSize = 0;
    return labelSilhouette(m.low.data(), m.count(), labels, q);
}

double layoutAgreement(const LandmarkModel& m, const std::vector<int32_t>& labels) {
    QualityParams q;
    q.sampleSize = 0;
    q.k = 5;
    return labelAgreement(m.low.data(), m.count(), labels, q);
}
}  // namespace

TEST(SupervisedLayout, TsneAndUmapKeepLabelsApart) {
    for (const std::string layout : {"tsne", "umap"}) {
        double silhouette[2] = {0, 0}, agreement[2] = {0, 0};
        for (int supervised = 0; supervised < 2; ++supervised) {
            LandmarkModel m = scrambled(200, 6, 5);
            const std::vector<int32_t> labels = crossingLabels(m);
            std::unique_ptr<Trainer> t;
            if (layout == "tsne") {
                TsneParams p;
                p.perplexity = 15.0f;
                p.iterations = 300;
                p.exaggerationIters = 100;
                t = std::make_unique<TsneLayoutTrainer>(p);
            } else {
                UmapParams p;
                p.epochs = 200;
                t = std::make_unique<UmapLayoutTrainer>(p);
            }
            if (supervised) EXPECT_TRUE(t->supervise(labels, 3.0f));
            while (t->step(m, kNoData)) {
            }
            silhouette[supervised] = layoutSilhouette(m, labels);
            agreement[supervised] = layoutAgreement(m, labels);
            // Supervision reorders within the blobs; the blobs' neighbourhoods stay.
            EXPECT_GT(landmarkTrust(m), 0.85) << layout << (supervised ? " supervised" : "");
        }
        // Both keep the labels apart locally (a landmark's 2D neighbours share its label); t-SNE,
        // whose similarities join every pair, also gathers each label's landmarks of different
        // blobs (the UMAP-like graph only weakens the edges between labels).
        EXPECT_GT(agreement[1], agreement[0] + 0.03) << layout;
        EXPECT_GT(agreement[1], 0.97) << layout;
        if (layout == "tsne") EXPECT_GT(silhouette[1], silhouette[0] + 0.1);
    }
}

TEST(SupervisedLayout, LandmarksTakeTheirCellsMostCommonLabel) {
    LandmarkModel m;
    m.resize(3, 1);
    m.high = {0.0f, 10.0f, 20.0f};
    // Cells near 0 are mostly 2, near 10 tied between 1 and 4 (the lower wins), near 20 none.
    const std::vector<float> cells = {0.1f, -0.2f, 0.3f, 9.9f, 10.1f, 19.0f, NAN};
    const std::vector<int32_t> labels = {2, 2, 5, 4, 1, -1, 2};
    auto search = makeCpuNearestSearch();
    EXPECT_EQ(landmarkLabels(cells.data(), 7, 1, labels, m, *search),
              (std::vector<int32_t>{2, 1, -1}));
    EXPECT_THROW(landmarkLabels(cells.data(), 6, 1, labels, m, *search), InputError);
    const std::vector<float> f = supervisionFactors({0, 1, -1}, 2.0f);
    EXPECT_FLOAT_EQ(f[0 * 3 + 1], std::exp(-2.0f));
    EXPECT_EQ(f[0 * 3 + 2], 1.0f);
    EXPECT_EQ(f[1 * 3 + 1], 1.0f);
}

}  // namespace sepal
