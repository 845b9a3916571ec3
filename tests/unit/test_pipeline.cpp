#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "backend/backends.h"
#include "core/common/error.h"
#include "core/demo/demo_data.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/prepare.h"
#include "core/pipeline/samples.h"
#include "core/transform/channel_label.h"

namespace sepal {
namespace {

TEST(LandmarkSpec, ParsesGridsAndCountsAndRejectsTheRest) {
    const LandmarkSpec som = parseLandmarkSpec("som:16x12");
    EXPECT_EQ(som.kind, "som");
    EXPECT_EQ(som.rows, 16u);
    EXPECT_EQ(som.cols, 12u);
    EXPECT_EQ(som.count, 192u);
    EXPECT_EQ(parseLandmarkSpec("plsom:8x8").kind, "plsom");
    const LandmarkSpec km = parseLandmarkSpec("kmeans:256");
    EXPECT_EQ(km.kind, "kmeans");
    EXPECT_EQ(km.count, 256u);
    for (const char* bad : {"som:16", "kmeans", "kmeans:2", "tsne:10", "som:0x5", "kmeans:-4", ""})
        EXPECT_THROW(parseLandmarkSpec(bad), InputError) << bad;
}

io::Table sampleTable(const std::string& source, std::vector<std::string> channels, size_t n,
                      float base) {
    io::Table t;
    t.source = source;
    for (const auto& c : channels) t.channels.push_back({c, "", 0, 32});
    t.values = Matrix(n, channels.size());
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < channels.size(); ++j) t.values.at(i, j) = base + 10 * j + i;
    return t;
}

TEST(Samples, ConcatenatesByChannelNameAndLabelsEachEventsFile) {
    io::Table a = sampleTable("/data/s1.fcs", {"CD3", "CD4", "CD8"}, 2, 0);
    io::Table b = sampleTable("/other/s2.csv", {"CD8", "CD3"}, 3, 100);  // reordered, no CD4
    a.labels.push_back({"population", {"T", "B"}, {0, 1}});
    b.labels.push_back({"population", {"B", "NK"}, {1, 0, -1}});
    const io::Table t = concatenateSamples({a, b});
    ASSERT_EQ(t.events(), 5u);
    ASSERT_EQ(t.channels.size(), 2u);  // CD4 left out
    EXPECT_EQ(t.channels[0].name, "CD3");
    EXPECT_EQ(t.channels[1].name, "CD8");
    EXPECT_FALSE(t.warnings.empty());
    EXPECT_EQ(t.values.at(0, 1), 20.0f);   // s1 CD8 (column 2 of a)
    EXPECT_EQ(t.values.at(2, 0), 110.0f);  // s2 CD3 (column 1 of b)
    EXPECT_EQ(t.values.at(2, 1), 100.0f);  // s2 CD8 (column 0 of b)
    ASSERT_EQ(t.labels.size(), 2u);
    const auto& pop = t.labels[0];
    EXPECT_EQ(pop.categories, (std::vector<std::string>{"T", "B", "NK"}));
    EXPECT_EQ(pop.codes, (std::vector<int32_t>{0, 1, 2, 1, -1}));
    const auto& sample = t.labels[1];
    EXPECT_EQ(sample.name, "sample");
    EXPECT_EQ(sample.categories, (std::vector<std::string>{"s1", "s2"}));
    EXPECT_EQ(sample.codes, (std::vector<int32_t>{0, 0, 1, 1, 1}));
}

TEST(Samples, SameFileNamesStayDistinctAndDisjointChannelsAreRefused) {
    const io::Table a = sampleTable("/x/s.fcs", {"A"}, 1, 0);
    const io::Table b = sampleTable("/y/s.fcs", {"A"}, 1, 0);
    const io::Table t = concatenateSamples({a, b});
    EXPECT_EQ(t.labels.back().categories, (std::vector<std::string>{"s", "s_2"}));
    EXPECT_THROW(concatenateSamples({a, sampleTable("c.csv", {"B"}, 1, 0)}), InputError);
    EXPECT_THROW(concatenateSamples({}), InputError);
    EXPECT_EQ(sampleName("dir/sub/patient 7.fcs"), "patient 7");
}

Matrix blobs(size_t n, size_t d, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 0.3f);
    Matrix m(n, d);
    for (size_t i = 0; i < n; ++i)
        for (size_t t = 0; t < d; ++t) m.at(i, t) = normal(rng) + ((i % 3) == t ? 4.0f : 0.0f);
    return m;
}

TEST(EmbedPipeline, KmeansWithTsneLayoutSeparatesClustersAndIsSeeded) {
    const Matrix x = blobs(600, 4, 7);
    EmbedSettings s;
    s.landmarks = parseLandmarkSpec("kmeans:60");
    s.params = defaultEmbedParams(s.landmarks);
    s.trainSample = 400;
    s.layoutParams = {{"iterations", 150}, {"perplexity", 8.0}};
    Backend backend = makeBackend("cpu");
    std::vector<std::string> stages;
    const EmbedResult r = embedMatrix(x, s, *backend.projector, *backend.search,
                                      [&](const std::string& stage, double) {
                                          if (stages.empty() || stages.back() != stage)
                                              stages.push_back(stage);
                                      });
    EXPECT_EQ(stages, (std::vector<std::string>{"train", "layout", "project"}));
    ASSERT_EQ(r.model.count(), 60u);
    ASSERT_EQ(r.xy.rows, 600u);
    for (float v : r.xy.values) ASSERT_TRUE(std::isfinite(v));
    // Cluster centroids in 2D lie farther apart than the clusters' own spread.
    double cx[3] = {0, 0, 0}, cy[3] = {0, 0, 0}, spread = 0;
    for (size_t i = 0; i < 600; ++i)
        cx[i % 3] += r.xy.at(i, 0) / 200, cy[i % 3] += r.xy.at(i, 1) / 200;
    for (size_t i = 0; i < 600; ++i)
        spread += std::hypot(r.xy.at(i, 0) - cx[i % 3], r.xy.at(i, 1) - cy[i % 3]) / 600;
    for (int a = 0; a < 3; ++a)
        for (int b = a + 1; b < 3; ++b)
            EXPECT_GT(std::hypot(cx[a] - cx[b], cy[a] - cy[b]), 2 * spread);
    const EmbedResult again = embedMatrix(x, s, *backend.projector, *backend.search);
    EXPECT_EQ(again.xy.values, r.xy.values);
}

TEST(EmbedPipeline, SomKeepsItsGridAndImpossibleRequestsAreRefused) {
    const Matrix x = blobs(300, 3, 2);
    EmbedSettings s;
    s.landmarks = parseLandmarkSpec("som:4x5");
    s.params = defaultEmbedParams(s.landmarks);
    s.landmarkParams = {{"epochs", 2}};
    Backend backend = makeBackend("cpu");
    const EmbedResult r = embedMatrix(x, s, *backend.projector, *backend.search);
    EXPECT_EQ(r.model.count(), 20u);
    s.landmarks = parseLandmarkSpec("kmeans:400");  // more landmarks than events
    EXPECT_THROW(embedMatrix(x, s, *backend.projector, *backend.search), InputError);
    s.landmarks = parseLandmarkSpec("kmeans:10");
    s.params.k = 50;  // k > g
    EXPECT_THROW(embedMatrix(x, s, *backend.projector, *backend.search), InputError);
}

TEST(Prepare, ColumnsByMarkerOrLabelAndTheDemoKeepsItsMarkers) {
    // The generated demo, before it is written, carries $CYT only: still cytometry, so the
    // default keeps its 22 markers, as for data/demo.fcs.
    const io::Table demo = demo::makeDemoTable(300);
    const TransformPipeline preset = choosePipeline(demo, PrepareOptions{});
    ASSERT_EQ(preset.steps.size(), 22u);
    EXPECT_EQ(preset.steps.front().name, "Y89Di");
    PrepareOptions pick;
    pick.columns = {"CD4 (Nd142Di)", "cd8", "Sm154Di", "DNA1"};
    const TransformPipeline chosen = choosePipeline(demo, pick);
    EXPECT_EQ(chosen.columns(),
              (std::vector<std::string>{"Nd142Di", "Nd143Di", "Sm154Di", "Ir191Di"}));
    for (const auto& step : chosen.steps) EXPECT_EQ(step.transform.cofactor, 5.0) << step.name;
    pick.columns = {"CD999"};
    try {
        choosePipeline(demo, pick);
        FAIL() << "CD999 was accepted";
    } catch (const InputError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("--columns: no channel or marker 'CD999'"), std::string::npos)
            << message;
        EXPECT_NE(message.find("DNA1 (Ir191Di)"), std::string::npos) << message;
    }
}

// Landmarks and layout separate what the cells are: a panel with state markers embeds its type
// markers, and the state ones are kept beside with the same transform for medians and colour.
TEST(Prepare, TypeMarkersAreEmbeddedAndStateMarkersKeptBeside) {
    const io::Table demo = demo::makeDemoTable(300, 1, true);
    const TransformPipeline embedded = choosePipeline(demo, PrepareOptions{});
    EXPECT_EQ(embedded.steps.size(), 22u);
    const TransformPipeline state = chooseStatePipeline(demo, embedded);
    const std::vector<std::string> stateMarkers = markerNames(demo, state.columns());
    EXPECT_EQ(stateMarkers, (std::vector<std::string>{"pSTAT5", "pERK", "pS6", "Ki67", "CD69",
                                                      "IFNg", "TNFa", "GranzymeB", "Perforin"}));
    for (const auto& step : state.steps) EXPECT_EQ(step.transform.cofactor, 5.0) << step.name;
    // Every marker when asked; then nothing is left beside.
    PrepareOptions all;
    all.allMarkers = true;
    const TransformPipeline everything = choosePipeline(demo, all);
    EXPECT_EQ(everything.steps.size(), 31u);
    EXPECT_TRUE(chooseStatePipeline(demo, everything).steps.empty());
    // A class the user sets moves a marker between the two.
    PrepareOptions mine;
    mine.markerClasses["pSTAT5"] = MarkerClass::Type;
    mine.markerClasses["CD4"] = MarkerClass::State;
    const TransformPipeline moved = choosePipeline(demo, mine);
    const std::vector<std::string> movedMarkers = markerNames(demo, moved.columns());
    EXPECT_NE(std::find(movedMarkers.begin(), movedMarkers.end(), "pSTAT5"), movedMarkers.end());
    EXPECT_EQ(std::find(movedMarkers.begin(), movedMarkers.end(), "CD4"), movedMarkers.end());
    const auto movedState =
        markerNames(demo, chooseStatePipeline(demo, moved, mine.markerClasses).columns());
    EXPECT_EQ(movedState.front(), "CD4");
    EXPECT_EQ(movedState.size(), 9u);
    // Columns chosen by name are embedded as they are.
    PrepareOptions pick;
    pick.columns = {"CD4", "pSTAT5"};
    EXPECT_EQ(choosePipeline(demo, pick).steps.size(), 2u);
    // Side by side: the embedded values, then the state ones, row by row.
    TransformPipeline embeddedPipeline = embedded;
    const Matrix points = fitAndApply(embeddedPipeline, demo);
    TransformPipeline statePipeline = state;
    const Matrix statePoints = fitAndApply(statePipeline, demo);
    const Matrix both = withStateColumns(points, statePoints);
    ASSERT_EQ(both.cols, 31u);
    EXPECT_EQ(both.row(7)[0], points.row(7)[0]);
    EXPECT_EQ(both.row(7)[22], statePoints.row(7)[0]);
    EXPECT_THROW(withStateColumns(points, Matrix(3, 2)), InputError);
}

// A panel the classes cannot split (fewer than two type markers) keeps every marker.
TEST(Prepare, APanelWithoutTypeMarkersKeepsEveryMarker) {
    const io::Table demo = demo::makeDemoTable(200, 1, true);
    PrepareOptions options;
    for (const auto& marker : markerNames(demo, choosePipeline(demo, PrepareOptions{}).columns()))
        options.markerClasses[marker] = MarkerClass::State;
    EXPECT_EQ(choosePipeline(demo, options).steps.size(), 31u);
}

}  // namespace
}  // namespace sepal
