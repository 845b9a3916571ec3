// Missing values (NA in CSV, NaN or infinity in FCS, overflowing $PnE): events with them are left
// out of training and placed by the projection; a column without any finite value is left out
// of the default pipelines; an overflowing $PnE is a warning naming the channel.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "backend/backends.h"
#include "core/common/error.h"
#include "core/io/csv_reader.h"
#include "core/io/fcs_reader.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/prepare.h"
#include "core/train/init.h"
#include "core/train/sampling.h"
#include "core/train/trainer_factory.h"
#include "core/transform/empty_channels.h"
#include "core/transform/pipeline.h"
#include "fcs_builder.h"

namespace sepal {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Three Gaussian blobs in d dimensions, with a NaN, an infinity and a -infinity sprinkled over
// every `gapEvery`-th event (0: none).
Matrix blobsWithGaps(size_t n, size_t d, size_t gapEvery) {
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Matrix m(n, d);
    for (size_t i = 0; i < n; ++i)
        for (size_t t = 0; t < d; ++t) m.at(i, t) = normal(rng) + ((i % 3) == t ? 5.0f : 0.0f);
    if (gapEvery > 0)
        for (size_t i = 0; i < n; i += gapEvery) {
            const float bad[] = {kNaN, kInf, -kInf};
            m.at(i, (i / gapEvery) % d) = bad[(i / gapEvery) % 3];
        }
    return m;
}

bool allFinite(const std::vector<float>& v) {
    for (float x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

TEST(NonFinite, FiniteRowsSkipsRowsWithNaNOrInfinity) {
    const std::vector<float> x = {1, 2, kNaN, 3, 4, 5, kInf, 0, 6, -kInf};
    EXPECT_EQ(finiteRows(x.data(), 5, 2), (std::vector<size_t>{0, 2}));
    EXPECT_TRUE(finiteRows(x.data(), 0, 2).empty());
}

TEST(NonFinite, InitialisationNeverSeedsFromMissingValues) {
    const Matrix x = blobsWithGaps(300, 3, 2);  // half the events have a gap
    const TrainingData data{x.data(), x.rows, x.cols};
    for (InitMethod method : {InitMethod::Sample, InitMethod::Pca, InitMethod::Grid}) {
        InitParams p;
        p.method = method;
        p.g = 64;
        p.rows = p.cols = 6;
        LandmarkModel model;
        initModel(model, data, p);
        EXPECT_TRUE(allFinite(model.high)) << static_cast<int>(method);
        EXPECT_TRUE(allFinite(model.low)) << static_cast<int>(method);
    }
    const PcaPlane plane = computePcaPlane(data, 3);
    EXPECT_TRUE(allFinite(plane.mean));
    EXPECT_GT(plane.sd1, 1.0f);  // the blobs' spread, not NaN
}

TEST(NonFinite, InitialisationWithoutAnyFiniteEventSaysWhy) {
    Matrix x(20, 2);
    for (size_t i = 0; i < 20; ++i) x.at(i, 0) = static_cast<float>(i), x.at(i, 1) = kNaN;
    LandmarkModel model;
    InitParams p;
    p.method = InitMethod::Sample;
    p.g = 4;
    try {
        initModel(model, {x.data(), x.rows, x.cols}, p);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("none of the 20 training events"), std::string::npos)
            << e.what();
    }
}

// Every data-space trainer with every layout: the gaps are skipped, counted, and placed.
TEST(NonFinite, EveryTrainerAndLayoutEmbedsDataWithGaps) {
    const Matrix x = blobsWithGaps(900, 3, 7);
    const size_t gaps = (900 + 6) / 7;
    Backend backend = makeBackend("cpu");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"kmeans:36", ""},     {"kmeans:36", "graph"}, {"kmeans:36", "umap"},
        {"kmeans:36", "grid"}, {"som:6x6", ""},        {"som:6x6", "tsne"},
        {"plsom:6x6", ""},     {"plsom:6x6", "graph"}, {"batchsom:6x6", ""},
    };
    for (const auto& [landmarks, layout] : cases) {
        SCOPED_TRACE(landmarks + " " + layout);
        EmbedSettings s;
        s.landmarks = parseLandmarkSpec(landmarks);
        s.layout = layout;
        s.params = defaultEmbedParams(s.landmarks);
        s.trainSample = 500;
        s.landmarkParams = {{"epochs", 3}};
        if (layout == "umap") s.layoutParams = {{"epochs", 60}};
        if (layout == "tsne") s.layoutParams = {{"iterations", 60}, {"exaggerationIters", 20}};
        const EmbedResult r = embedMatrix(x, s, *backend.projector, *backend.search);
        EXPECT_EQ(r.trainingSkipped, gaps);
        EXPECT_EQ(r.report.nonFinitePoints, gaps);
        EXPECT_TRUE(allFinite(r.model.high));
        EXPECT_TRUE(allFinite(r.model.low));
        EXPECT_TRUE(allFinite(r.xy.values));
    }
}

// The app refines landmarks by stepping the online trainers on all events, gaps included.
TEST(NonFinite, OnlineTrainersSteppedOnDataWithGapsKeepFiniteLandmarks) {
    const Matrix x = blobsWithGaps(900, 3, 5);
    const TrainingData data{x.data(), x.rows, x.cols};
    Backend backend = makeBackend("cpu");
    for (const char* kind : {"som", "plsom", "online-kmeans"})
        for (size_t sample : {0u, 300u}) {
            SCOPED_TRACE(std::string(kind) + " sample " + std::to_string(sample));
            LandmarkModel model;
            InitParams init;
            init.rows = init.cols = 5;
            initModel(model, data, init);
            auto trainer =
                makeTrainer(kind, {{"epochs", 2}, {"sampleSize", sample}}, *backend.search);
            while (trainer->step(model, data)) {
            }
            EXPECT_TRUE(allFinite(model.high));
        }
}

TEST(NonFinite, DataWithoutGapsKeepsTheSeededSample) {
    // Complete data: the landmarks are the rows samplePoints picks from samplePoints' subsample,
    // as before events could be left out.
    const Matrix x = blobsWithGaps(600, 3, 0);
    Backend backend = makeBackend("cpu");
    EmbedSettings s;
    s.landmarks = parseLandmarkSpec("kmeans:20");
    s.layout = "grid";
    s.trainSample = 200;
    s.landmarkParams = {{"epochs", 0}};  // no Lloyd iteration: the sample stays
    s.seed = 5;
    size_t skipped = 99;
    const LandmarkModel m = trainLandmarks(x, s, *backend.search, {}, nullptr, &skipped);
    EXPECT_EQ(skipped, 0u);
    const std::vector<size_t> train = samplePoints(600, 200, 5);
    const std::vector<size_t> picked = samplePoints(200, 20, 5, true);
    ASSERT_EQ(m.count(), 20u);
    for (size_t i = 0; i < 20; ++i)
        for (size_t t = 0; t < 3; ++t) EXPECT_EQ(m.highRow(i)[t], x.at(train[picked[i]], t)) << i;
}

TEST(NonFinite, TooFewCompleteEventsNamesTheEmptyColumn) {
    Matrix x = blobsWithGaps(100, 3, 0);
    for (size_t i = 0; i < x.rows; ++i) x.at(i, 1) = kNaN;
    Backend backend = makeBackend("cpu");
    EmbedSettings s;
    s.landmarks = parseLandmarkSpec("kmeans:16");
    try {
        trainLandmarks(x, s, *backend.search);
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("only 0 of the 100 events"), std::string::npos) << what;
        EXPECT_NE(what.find("column 2 has no finite value"), std::string::npos) << what;
    }
}

io::Table tableWithEmptyColumn(bool cytometry) {
    io::Table t;
    t.source = "gaps.csv";
    t.channels = {{"CD3", "", 0, 32}, {"CD4", "", 0, 32}, {"CD8", "", 0, 32}};
    t.values = blobsWithGaps(50, 3, 0);
    for (size_t i = 0; i < 50; ++i) t.values.at(i, 1) = i % 2 ? kNaN : kInf;
    if (cytometry) t.keywords.emplace_back("$CYT", "LSRII");
    return t;
}

TEST(NonFinite, DefaultPipelinesLeaveOutColumnsWithoutValues) {
    for (bool cytometry : {true, false}) {
        const io::Table t = tableWithEmptyColumn(cytometry);
        EXPECT_EQ(emptyChannels(t), (std::vector<size_t>{1}));
        EXPECT_NE(emptyChannelNote(t, 1).find("channel CD4 has no finite value in 50 events"),
                  std::string::npos);
        const TransformPipeline p = choosePipeline(t, PrepareOptions{});
        EXPECT_EQ(p.columns(), (std::vector<std::string>{"CD3", "CD8"})) << cytometry;
    }
    // Asked for by name, the column stays: the user chose it.
    PrepareOptions chosen;
    chosen.columns = {"CD4", "CD8"};
    EXPECT_EQ(choosePipeline(tableWithEmptyColumn(false), chosen).columns(),
              (std::vector<std::string>{"CD4", "CD8"}));
}

TEST(NonFinite, CsvValuesBeyondDoubleAreInfiniteNotZero) {
    const auto path = std::filesystem::temp_directory_path() / "sepal_non_finite_big.csv";
    std::ofstream(path) << "a,b\n1e400,1\n-1e400,2\n1e-400,3\n1e39,4\n";
    const io::Table t = io::readCsv(path.string());
    std::filesystem::remove(path);
    ASSERT_EQ(t.events(), 4u);
    EXPECT_EQ(t.values.at(0, 0), kInf);  // was read as 0: a wrong value, not a missing one
    EXPECT_EQ(t.values.at(1, 0), -kInf);
    EXPECT_EQ(t.values.at(2, 0), 0.0f);
    EXPECT_EQ(t.values.at(3, 0), kInf);  // beyond float only
}

TEST(NonFinite, OverflowingLogAmplificationIsAWarningNamingTheChannel) {
    test::FcsBuilder b;
    b.kw("$BYTEORD", "1,2,3,4").kw("$DATATYPE", "I").kw("$MODE", "L").kw("$TOT", "2");
    b.params({"FL1-H", "FL2-H"}, {16, 16}, {"1024", "1024"});
    b.kw("$P1E", "1000,1").kw("$P2E", "4,1");
    for (uint64_t v : {10u, 512u, 1000u, 256u}) test::putInt(b.data, v, 2, true);
    const std::string bytes = b.build();
    const io::Table t = io::readFcsBytes(test::bytesOf(bytes), "log.fcs");
    size_t mentions = 0;
    for (const auto& w : t.warnings)
        if (w.find("$P1E = 1000,1 for channel FL1-H") != std::string::npos) {
            ++mentions;
            EXPECT_NE(w.find("3.85% of the range become infinite"), std::string::npos) << w;
        }
    EXPECT_EQ(mentions, 1u);
    for (const auto& w : t.warnings) EXPECT_EQ(w.find("$P2E"), std::string::npos) << w;
    EXPECT_TRUE(std::isfinite(t.values.at(0, 0)));  // 10^(1000 * 10 / 1024): about 6e9
    EXPECT_TRUE(std::isinf(t.values.at(1, 0)));
    EXPECT_FLOAT_EQ(t.values.at(1, 1), 10.0f);
}

}  // namespace
}  // namespace sepal
