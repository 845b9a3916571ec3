// The interactive model without a window: sweepers, undo, populations, landmarks, sessions.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <thread>

#include "app/autosave_folder.h"
#include "app/biaxial.h"
#include "app/dataset.h"
#include "app/document.h"
#include "app/file_io.h"
#include "app/projection_sweeper.h"
#include "app/recipes.h"
#include "app/scheduler.h"
#include "app/synthetic.h"
#include "app/training.h"
#include "app/workspace.h"
#include "backend/backends.h"
#include "core/cluster/heatmap.h"
#include "core/cluster/metaclusters.h"
#include "core/cluster/population_naming.h"
#include "core/common/error.h"
#include "core/demo/demo_data.h"
#include "core/embedsom/embedsom.h"
#include "core/gate/flowjo_workspace.h"
#include "core/gate/gate.h"
#include "core/gate/gate_counts_table.h"
#include "core/gate/gate_membership.h"
#include "core/io/csv_writer.h"
#include "core/io/fcs_reader.h"
#include "core/io/fcs_writer.h"
#include "core/knn/nearest_search.h"
#include "core/metrics/quality.h"
#include "core/model/model_file.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/prepare.h"
#include "core/pipeline/samples.h"
#include "core/train/topology.h"
#include "core/train/trainer_names.h"
#include "core/train/trainer_registry.h"
#include "core/transform/channel_label.h"
#include "render/camera.h"
#include "render/cpu_splats.h"
#include "test_only_trainer.h"
#include "workspace_support.h"

namespace sepal::app {
namespace {

// The window's first guess must be sepal-cli's: the demo is mass cytometry ("Y89Di"), so
// arcsinh with cofactor 5 on the 22 markers, time and event length left out.
TEST(DataDefaults, MassCytometryGetsCofactorFiveAndMarkersOnly) {
    Dataset data;
    data.tables.push_back(demo::makeDemoTable(2000));
    const TransformPipeline p = defaultPipeline(data);
    ASSERT_EQ(p.steps.size(), 22u);
    for (const auto& step : p.steps) {
        EXPECT_NE(step.name, "Time");
        EXPECT_NE(step.name, "Event_length");
        EXPECT_EQ(step.transform.kind, ColumnTransform::Kind::Arcsinh) << step.name;
        EXPECT_EQ(step.transform.cofactor, 5.0) << step.name;
    }
    // The same choice as sepal-cli's: one function decides for both.
    EXPECT_EQ(p.toJson(), choosePipeline(data.tables.front(), PrepareOptions{}).toJson());
}

// Users pick markers by their names: the columns stay the channel names (files, models and
// scripts refer to them), the labels the windows show lead with the marker.
TEST(DataDefaults, ColumnsKeepChannelNamesAndLabelsLeadWithTheMarker) {
    Dataset data;
    data.tables.push_back(demo::makeDemoTable(500));
    TransformPipeline pipeline = defaultPipeline(data);
    rebuildPoints(data, pipeline);
    ASSERT_EQ(data.columns.size(), 22u);
    ASSERT_EQ(data.labels.size(), data.columns.size());
    const auto cd4 = std::find(data.labels.begin(), data.labels.end(), "CD4 (Nd142Di)");
    ASSERT_NE(cd4, data.labels.end());
    EXPECT_EQ(data.columns[size_t(cd4 - data.labels.begin())], "Nd142Di");
    EXPECT_EQ(data.label(size_t(cd4 - data.labels.begin())), "CD4 (Nd142Di)");
    // A channel without a marker name is labelled by its name alone.
    EXPECT_EQ(channelLabel({"FSC-A", "", 0, 32}), "FSC-A");
    EXPECT_EQ(channelLabel({"CD3", "CD3", 0, 32}), "CD3");
}

// The hover names a cell's own labels: an event of the second file maps to that file's row.
TEST(DataDefaults, LabelsOfAnEventComeFromItsOwnFile) {
    Dataset data;
    for (size_t n : {300u, 500u}) {
        io::Table t = demo::makeDemoTable(n);
        io::LabelColumn kind{"kind", {"A", "B", "C"}, {}};
        for (size_t row = 0; row < n; ++row)
            kind.codes.push_back(row % 7 == 6 ? -1 : int32_t((row + n) % 3));  // some missing
        t.labels = {kind};
        data.tables.push_back(std::move(t));
    }
    TransformPipeline pipeline = defaultPipeline(data);
    rebuildPoints(data, pipeline);
    ASSERT_EQ(data.events(), 800u);
    for (size_t row : {0u, 124u, 499u}) {
        const auto labels = data.labelsOf(300 + row);
        ASSERT_EQ(labels.size(), 1u) << row;
        EXPECT_EQ(labels[0].first, "kind");
        EXPECT_EQ(labels[0].second, std::string(1, char('A' + (row + 500) % 3))) << row;
    }
    EXPECT_EQ(data.labelsOf(0)[0].second, "A");   // first file: (0 + 300) % 3
    EXPECT_TRUE(data.labelsOf(300 + 6).empty());  // a missing label shows nothing
    EXPECT_TRUE(data.labelsOf(800).empty());
}

// Largest difference between two n x 2 coordinate sets, as a fraction of the first's extent.
double relativeDifference(const std::vector<float>& a, const float* b) {
    float lo = a[0], hi = a[0];
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        lo = std::min(lo, a[i]), hi = std::max(hi, a[i]);
        worst = std::max(worst, double(std::abs(a[i] - b[i])));
    }
    return worst / std::max(1e-12, double(hi - lo));
}

// What `sepal-cli embed FILE` does with its defaults: the pipeline, the points, the result.
struct CliEmbed {
    TransformPipeline pipeline;
    Matrix points;
    EmbedSettings settings;
    Backend cpu = makeBackend("cpu");
    EmbedResult result;
    explicit CliEmbed(const io::Table& table)
        : pipeline(choosePipeline(table, PrepareOptions{})), points(fitAndApply(pipeline, table)) {
        settings.params = defaultEmbedParams(settings.landmarks);
        result = embedMatrix(points, settings, *cpu.projector, *cpu.search);
    }
};

// One pipeline: a file opens on sepal-cli embed's picture (same transform, recipe and seed); the
// model the app exports gives sepal-cli apply's coordinates; a model the CLI wrote opens in the
// app on the CLI's coordinates.
TEST(OnePipeline, TheAppAndSepalCliGiveTheSameCoordinates) {
    const io::Table demo = demo::makeDemoTable(3000, 7);
    Workspace ws("cpu");
    ws.data().openTables({demo});
    ASSERT_NE(ws.training().recipeRunning(), nullptr);  // trained on open, no click
    settle(ws);
    ASSERT_FALSE(ws.training().untrained());

    // What `sepal-cli embed demo.fcs` does with its defaults.
    const CliEmbed cli(demo);
    ASSERT_EQ(ws.positions().size(), cli.result.xy.values.size());
    EXPECT_LT(relativeDifference(ws.positions(), cli.result.xy.data()), 1e-5);
    EXPECT_EQ(ws.state().model.high, cli.result.model.high);

    // The app's model file, applied as `sepal-cli apply` applies it.
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sepal-one-pipeline-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    ws.exports().model((dir / "app.json").string());
    const LoadedModel fromApp = loadModel((dir / "app.json").string());
    const Matrix applied = TransformPipeline::fromJson(fromApp.transform).apply(demo);
    Matrix xy(applied.rows, 2);
    cli.cpu.projector->project(applied.data(), applied.rows, applied.cols, fromApp.model,
                               fromApp.params, xy.data());
    EXPECT_LT(relativeDifference(ws.positions(), xy.data()), 1e-5);

    // The CLI's model file, opened in another app window on the same file.
    saveModel((dir / "cli.json").string(), cli.result.model, cli.pipeline.columns(),
              cli.pipeline.toJson(), cli.settings.params);
    Workspace other("cpu");
    other.data().openTables({demo});
    other.training().cancelRecipe();
    other.data().openModel((dir / "cli.json").string());
    settle(other);
    EXPECT_LT(relativeDifference(other.positions(), cli.result.xy.data()), 1e-5);
    EXPECT_EQ(other.edits().undoStack().undoLabel(), "Open model " + (dir / "cli.json").string());
    std::filesystem::remove_all(dir);
}

// Populations from landmarks are sepal-cli embed --metaclusters' (groups, cells and names), one
// undo step; a model file's populations label the cells of the app that opens it the same way.
// One pipeline with gates and a balanced training sample: three samples of different sizes, a
// live gate and "Balanced samples" in the app train the landmarks and give the coordinates that
// sepal-cli embed s1 s2 s3 --gates G --balanced gives.
TEST(OnePipeline, GatesAndBalancedSamplesTrainAsSepalCli) {
    std::vector<io::Table> tables = {demo::makeDemoTable(3000, 1), demo::makeDemoTable(1200, 2),
                                     demo::makeDemoTable(2000, 3)};
    for (size_t s = 0; s < tables.size(); ++s)
        tables[s].source = "s" + std::to_string(s + 1) + ".fcs";
    const GateSelection live = liveGate();
    Workspace ws("cpu");
    ws.data().openTables(tables);
    settle(ws);
    ASSERT_TRUE(ws.gates().set(live, "Gate live"));
    TrainingSettings t = ws.state().training;
    t.balanced = true;
    t.trainSample = 1500;  // less than the smallest sample's share
    ws.training().setSettings(t);
    ws.training().runRecipe();
    settle(ws);
    const Gating& gating = ws.state().gating;

    // sepal-cli embed s1.fcs s2.fcs s3.fcs --gates G --balanced --train-sample 1500
    io::Table table = combineSamples(tables, "sample");
    TransformPipeline pipeline = choosePipeline(table, PrepareOptions{});
    fitAndApply(pipeline, table);
    table = io::keepRows(table, live.inside(table));
    const Matrix points = pipeline.apply(table);
    EmbedSettings settings;
    settings.params = defaultEmbedParams(settings.landmarks);
    settings.trainSample = 1500;
    for (const auto& l : table.labels)
        if (l.name == "sample") settings.balanceGroups = l.codes;
    ASSERT_EQ(settings.balanceGroups.size(), points.rows);
    Backend cpu = makeBackend("cpu");
    const EmbedResult result = embedMatrix(points, settings, *cpu.projector, *cpu.search);

    ASSERT_EQ(gating.events(ws.state().data.events()).size(), points.rows);
    EXPECT_EQ(ws.state().model.high, result.model.high);
    std::vector<float> gated;
    for (size_t i : gating.events(ws.state().data.events()))
        gated.insert(gated.end(), {ws.positions()[2 * i], ws.positions()[2 * i + 1]});
    EXPECT_LT(relativeDifference(gated, result.xy.data()), 1e-5);
}

TEST(OnePipeline, ASupervisedLayoutIsSepalClisEmbedSupervise) {
    // Two samples with a label column (whether the generator made the cell an odd or even
    // population): "Pull together: stage" in the app, embed --supervise stage in sepal-cli.
    std::vector<io::Table> tables = {demo::makeDemoTable(2500, 4), demo::makeDemoTable(1500, 5)};
    for (size_t s = 0; s < tables.size(); ++s) {
        io::Table& t = tables[s];
        t.source = "s" + std::to_string(s + 1) + ".fcs";
        const int pop = t.findChannel("Population");
        ASSERT_GE(pop, 0);
        io::LabelColumn stage{"stage",
                              s == 0 ? std::vector<std::string>{"even", "odd"}
                                     : std::vector<std::string>{"odd", "even"},
                              {}};
        for (size_t i = 0; i < t.events(); ++i) {
            const bool odd = int(t.values.at(i, size_t(pop))) % 2 == 1;
            stage.codes.push_back(s == 0 ? (odd ? 1 : 0) : (odd ? 0 : 1));
        }
        t.labels.push_back(stage);
    }
    Workspace ws("cpu");
    ws.data().openTables(tables);
    settle(ws);
    TrainingSettings t = ws.state().training;
    t.supervise = "stage";
    t.supervisionStrength = 4.0f;
    t.landmarks = 128;
    ws.training().setSettings(t);
    ws.training().runRecipe();
    settle(ws);
    EXPECT_NE(recipeCommandLine(ws.state().training).find("--supervise stage"), std::string::npos);

    // sepal-cli embed s1.fcs s2.fcs --landmarks kmeans:128 --supervise stage
    //     --supervision-strength 4
    io::Table table = combineSamples(tables, "sample");
    TransformPipeline pipeline = choosePipeline(table, PrepareOptions{});
    const Matrix points = fitAndApply(pipeline, table);
    EmbedSettings settings;
    settings.landmarks = parseLandmarkSpec("kmeans:128");
    settings.params = defaultEmbedParams(settings.landmarks);
    settings.supervisionStrength = 4.0f;
    for (const auto& l : table.labels)
        if (l.name == "stage") settings.supervision = l.codes;
    ASSERT_EQ(settings.supervision.size(), points.rows);
    Backend cpu = makeBackend("cpu");
    const EmbedResult result = embedMatrix(points, settings, *cpu.projector, *cpu.search);
    EXPECT_EQ(ws.state().model.low, result.model.low);
    EXPECT_LT(relativeDifference(ws.positions(), result.xy.data()), 1e-5);
    // Unsupervised, the layout differs: the labels did act.
    settings.supervision.clear();
    EXPECT_NE(embedMatrix(points, settings, *cpu.projector, *cpu.search).model.low,
              result.model.low);
}

// The state markers of a panel are not embedded but stay for the heatmap, the medians and the
// model, as sepal-cli keeps them: the same columns, the same values, the same state_transform.
// Files of one name in different folders are two samples: the legends name them with their
// folders, the tables as sepal-cli does ("s1", "s1_2").
TEST(OpeningFiles, FilesOfOneNameInTwoFoldersAreToldApart) {
    std::vector<io::Table> tables = demoSamples(2, 600);
    tables[0].source = "a/s1.fcs";
    tables[1].source = "b/s1.fcs";
    Workspace ws("cpu");
    ws.data().openTables(tables);
    settle(ws);
    ASSERT_EQ(ws.state().data.samples.size(), 2u);
    EXPECT_EQ(ws.state().data.samples[0].name, "a/s1.fcs");
    EXPECT_EQ(ws.state().data.samples[1].name, "b/s1.fcs");
    EXPECT_EQ(ws.state().data.sampleNames(), (std::vector<std::string>{"s1", "s1_2"}));
}

// A file added while it is open, or opened twice at once, would count its cells twice: refused
// in the log, and what was open stays.
TEST(OpeningFiles, AFileOpenAlreadyIsNotAddedAgain) {
    const std::string file = writeDemoFcs("twice", 2000, 3, false);
    Workspace ws("cpu");
    ws.data().openFiles({file});
    settle(ws);
    ASSERT_EQ(ws.state().data.samples.size(), 1u);
    const auto refusedLast = [&](const std::string& words) {
        ASSERT_FALSE(ws.log().empty());
        EXPECT_EQ(ws.log().back().level, LogEntry::Error);
        EXPECT_NE(ws.log().back().text.find(words), std::string::npos) << ws.log().back().text;
    };
    const std::string again =
        (std::filesystem::path(file).parent_path() / "." / std::filesystem::path(file).filename())
            .string();
    ws.data().openFiles({again}, true);
    settle(ws);
    refusedLast("is open already");
    ws.data().openFiles({file, again});
    settle(ws);
    refusedLast("given twice (inputs 1 and 2)");
    EXPECT_EQ(ws.state().data.samples.size(), 1u);
    EXPECT_EQ(ws.state().data.events(), 2000u);
    std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

TEST(MarkerClassesInTheApp, StateMarkersStayBesideTheEmbeddedOnes) {
    const std::string file = writeDemoFcs("state", 4000, 5, true);
    const auto dir = std::filesystem::path(file).parent_path();
    Workspace ws("cpu");
    ws.data().openFiles({file});
    settle(ws);
    const PreparedInput cli = prepareInputs({file}, PrepareOptions{});
    EXPECT_EQ(ws.state().data.columns, cli.pipeline.columns());
    EXPECT_EQ(ws.state().data.columns.size(), 22u);
    ws.populations().fromLandmarks(6);
    ASSERT_EQ(ws.state().populations.groups.size(), 6u);
    const Heatmap heat = ws.populations().heatmap();
    ASSERT_EQ(heat.columns.size(), 31u);
    EXPECT_EQ(heat.columns.back(), "Perforin");
    EXPECT_EQ(heat.classes.back(), MarkerClass::State);
    EXPECT_EQ(heat.classes.front(), MarkerClass::Type);
    // The values sepal-cli computes for the same cells.
    std::vector<int32_t> codes;
    for (uint32_t m : ws.state().populations.membership) codes.push_back(int32_t(m) - 1);
    const Heatmap expected =
        heatmapOf(withStateColumns(cli.points, cli.statePoints), codes, heat.rows, heat.columns);
    EXPECT_EQ(heat.medians, expected.medians);
    // The model exported carries the state markers' pipeline for apply's medians.
    const auto model = (dir / "m.json").string();
    ws.exports().model(model);
    EXPECT_EQ(loadModel(model).stateTransform, cli.statePipeline.toJson());
    std::filesystem::remove_all(dir);
}

TEST(MarkerClassesInTheApp, AStateMarkerNamesNothingAndTheSessionKeepsTheClass) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("sepal-classes-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    io::Table demo = demo::makeDemoTable(6000, 3);
    demo.source = (dir / "demo.fcs").string();  // the session names the file
    io::writeFcs(demo.source, demo);
    Workspace ws("cpu");
    ws.data().openTables({demo});
    settle(ws);
    app::TrainingSettings t = ws.state().training;
    t.markerClasses["Nd142Di"] = MarkerClass::State;  // CD4
    ws.training().setSettings(t);
    settle(ws);
    ws.populations().fromLandmarks(12);
    ASSERT_EQ(ws.state().populations.groups.size(), 12u);
    for (const auto& g : ws.state().populations.groups) {
        const std::string words = " " + g.phenotype + " ";
        EXPECT_EQ(words.find(" CD4+ "), std::string::npos) << g.phenotype;
        EXPECT_EQ(words.find(" CD4- "), std::string::npos) << g.phenotype;
        EXPECT_EQ(g.name.find("CD4 T"), std::string::npos) << g.name;
    }
    // As sepal-cli embed --marker-classes: the same names.
    const CliEmbed cli(demo);
    MetaclusterSettings groups;
    groups.k = 12;
    groups.weights =
        landmarkWeights(cli.points, nearestLandmarks(cli.points, cli.result.model, *cli.cpu.search),
                        cli.result.model.count());
    const NamingInput naming =
        namingInputFor(demo, cli.pipeline.columns(), {{"Nd142Di", MarkerClass::State}});
    groups.columns = groupingColumns(naming.classes);
    const auto codes =
        groupsOfPoints(cli.points, cli.result.model, metaclusterLandmarks(cli.result.model, groups),
                       *cli.cpu.search);
    const auto names = namePopulations(cli.points, codes, 12, naming);
    for (size_t p = 0; p < 12; ++p) EXPECT_EQ(ws.state().populations.groups[p].name, names[p].name);
    const auto path = (dir / "s.session.json").string();
    ws.exports().saveSession(path, {1, 2, 30});
    Workspace other("cpu");
    other.exports().loadSession(path);
    settle(other);
    EXPECT_EQ(other.state().training.markerClasses.at("Nd142Di"), MarkerClass::State);
    std::filesystem::remove_all(dir);
}

TEST(OnePipeline, PopulationsFromLandmarksAreSepalClisMetaclusters) {
    const io::Table demo = demo::makeDemoTable(4000, 3);
    Workspace ws("cpu");
    ws.data().openTables({demo});
    settle(ws);
    ws.populations().fromLandmarks(12);
    const auto& pops = ws.state().populations;
    ASSERT_EQ(pops.groups.size(), 12u);
    EXPECT_EQ(ws.edits().undoStack().undoLabel(), "Populations from landmarks");
    EXPECT_EQ(ws.state().colour.mode, ColourMode::Population);

    const CliEmbed cli(demo);
    MetaclusterSettings groups;
    groups.k = 12;
    groups.weights =
        landmarkWeights(cli.points, nearestLandmarks(cli.points, cli.result.model, *cli.cpu.search),
                        cli.result.model.count());
    const auto ofLandmark = metaclusterLandmarks(cli.result.model, groups);
    const auto codes = groupsOfPoints(cli.points, cli.result.model, ofLandmark, *cli.cpu.search);
    const auto markers = markerNames(demo, cli.pipeline.columns());
    EXPECT_EQ(markers.front(), "CD45");  // Y89Di's marker, not the channel
    const auto names =
        namePopulations(cli.points, codes, 12, namingInputFor(demo, cli.pipeline.columns()));
    for (size_t p = 0; p < 12; ++p) {
        EXPECT_EQ(pops.groups[p].name, names[p].name);
        EXPECT_EQ(pops.groups[p].phenotype, names[p].phrase);
    }
    ASSERT_EQ(pops.membership.size(), codes.size());
    size_t differ = 0;
    for (size_t i = 0; i < codes.size(); ++i) differ += int(pops.membership[i]) - 1 != codes[i];
    EXPECT_EQ(differ, 0u);
    ws.edits().undo();
    EXPECT_TRUE(ws.state().populations.groups.empty());
    ws.edits().redo();
    EXPECT_EQ(ws.state().populations.groups.size(), 12u);

    // The CLI's model with its populations, opened on the same file.
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sepal-model-populations-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::vector<std::string> nameList;
    for (const PopulationName& n : names) nameList.push_back(n.name);
    std::vector<ModelPopulation> modelPopulations = populationsFromGroups(ofLandmark, nameList);
    for (size_t p = 0; p < names.size(); ++p) modelPopulations[p].phenotype = names[p].phrase;
    saveModel((dir / "m.json").string(), cli.result.model, cli.pipeline.columns(),
              cli.pipeline.toJson(), cli.settings.params, modelPopulations);
    Workspace other("cpu");
    other.data().openTables({demo});
    other.training().cancelRecipe();
    other.data().openModel((dir / "m.json").string());
    settle(other);
    EXPECT_EQ(other.state().populations.groups, pops.groups);
    // The app's own model file carries its populations: applied, it labels every cell the same.
    ws.exports().model((dir / "app.json").string());
    const LoadedModel fromApp = loadModel((dir / "app.json").string());
    ASSERT_EQ(fromApp.populations.size(), 12u);
    const auto appCodes = groupsOfPoints(
        cli.points, fromApp.model, groupsOfLandmarks(fromApp.populations, fromApp.model.count()),
        *cli.cpu.search);
    EXPECT_EQ(appCodes, codes);
    // Its heatmap: a row per population with its cells, a column per marker.
    const Heatmap heat = ws.populations().heatmap();
    EXPECT_EQ(heat.rows, nameList);
    EXPECT_EQ(heat.columns, markers);
    EXPECT_EQ(heat.cells, ws.populations().sizes());
    ws.exports().heatmap((dir / "heat.png").string());
    EXPECT_GT(std::filesystem::file_size(dir / "heat.png"), 1000u);
    size_t otherDiffer = 0;
    for (size_t i = 0; i < codes.size(); ++i)
        otherDiffer += other.state().populations.membership[i] != pops.membership[i];
    EXPECT_EQ(otherDiffer, 0u) << "of " << codes.size() << " cells; populations "
                               << other.state().populations.groups.size();
    std::filesystem::remove_all(dir);
}

// Populations drawn with the lasso travel with the model as regions of the layout: after
// metaclusters, a brush, a split, a merge and a deletion, the app's model file labels the cells
// of its own file as the picture does, and those of a new file as an app that opens the model
// on it does (the path of sepal-cli apply: nearest landmark, projection, strokes).
TEST(OnePipeline, DrawnPopulationsTravelWithTheModel) {
    const io::Table demo = demo::makeDemoTable(4000, 3);
    Workspace ws("cpu");
    ws.data().openTables({demo});
    settle(ws);
    ws.populations().fromLandmarks(8);
    const auto& xy = ws.positions();
    float minX = INFINITY, maxX = -INFINITY, minY = INFINITY, maxY = -INFINITY;
    for (size_t i = 0; i < xy.size(); i += 2) {
        minX = std::min(minX, xy[i]), maxX = std::max(maxX, xy[i]);
        minY = std::min(minY, xy[i + 1]), maxY = std::max(maxY, xy[i + 1]);
    }
    const float w = maxX - minX, h = maxY - minY;
    // A triangle over the lower left, a split of the first population over the right half,
    // the split merged into the third population, the second deleted.
    EXPECT_GT(
        ws.populations().brush({minX, minY, minX + 0.6f * w, minY, minX, minY + 0.6f * h}, "Drawn"),
        0u);
    const std::string first = ws.state().populations.groups[0].name;
    const auto right = rectanglePolygon(minX + 0.5f * w, minY, maxX, maxY);
    ws.populations().brush(right, "Split", first);
    const size_t k = ws.state().populations.groups.size();
    ASSERT_EQ(ws.state().populations.groups[k - 1].name, "Split");
    ws.populations().merge(k - 1, 2);
    ws.populations().remove(1);
    const Populations& pops = ws.state().populations;
    ASSERT_FALSE(pops.regions.empty());
    EXPECT_EQ(pops.regions.strokes.size(), 2u);
    EXPECT_EQ(ws.populations().ofModel().disagreeing, 0u);

    const auto dir = std::filesystem::temp_directory_path() /
                     ("sepal-drawn-populations-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    ws.exports().model((dir / "app.json").string());
    const LoadedModel model = loadModel((dir / "app.json").string());
    ASSERT_EQ(model.regions, pops.regions);
    // What sepal-cli apply does with each block of a file.
    Backend cpu = makeBackend("cpu");
    const auto applyModel = [&](const io::Table& table) {
        const Matrix points = TransformPipeline::fromJson(model.transform).apply(table);
        Matrix placed(points.rows, 2);
        cpu.projector->project(points.data(), points.rows, points.cols, model.model, model.params,
                               placed.data());
        return labelCells(
            model.regions,
            groupsOfPoints(points, model.model, model.regions.labelOfLandmark, *cpu.search),
            placed.data());
    };
    const auto applied = applyModel(demo);
    std::vector<int32_t> shown;
    for (uint8_t m : pops.membership) shown.push_back(int32_t(m) - 1);
    EXPECT_EQ(applied, shown);
    // The drawn population and the merged split label cells; the deleted one's cells join none.
    const auto& names = pops.groups;
    const auto drawn = std::find_if(names.begin(), names.end(),
                                    [](const Population& p) { return p.name == "Drawn"; });
    ASSERT_NE(drawn, names.end());
    EXPECT_GT(std::count(applied.begin(), applied.end(), int32_t(drawn - names.begin())), 0);
    EXPECT_GT(std::count(applied.begin(), applied.end(), -1), 0);

    // A new file: the app that opens the model labels its cells as sepal-cli apply does.
    const io::Table other = demo::makeDemoTable(3000, 11);
    Workspace second("cpu");
    second.data().openTables({other});
    second.training().cancelRecipe();
    second.data().openModel((dir / "app.json").string());
    settle(second);
    std::vector<int32_t> opened;
    for (uint8_t m : second.state().populations.membership) opened.push_back(int32_t(m) - 1);
    EXPECT_EQ(opened, applyModel(other));
    EXPECT_EQ(second.state().populations.regions, pops.regions);
    std::filesystem::remove_all(dir);
}

// Export > Counts with gates and no populations writes each sample's gate counts.
TEST(Workspace, CountsWithGatesAloneAreEachSamplesGateCounts) {
    std::vector<io::Table> tables = {demo::makeDemoTable(3000, 1), demo::makeDemoTable(1200, 2)};
    for (size_t s = 0; s < tables.size(); ++s)
        tables[s].source = "s" + std::to_string(s + 1) + ".fcs";
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sepal-app-gate-counts-" + std::to_string(::getpid()));
    Workspace ws("cpu");
    ws.data().openTables(tables);
    settle(ws);
    try {
        ws.exports().counts(dir.string());
        FAIL() << "counts were written without populations or gates";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("nothing to count"), std::string::npos) << e.what();
    }
    const GateSelection live = liveGate();
    ASSERT_TRUE(ws.gates().set(live, "Gate live"));
    settle(ws);
    const std::vector<std::string> written = ws.exports().counts(dir.string());
    ASSERT_EQ(written, std::vector<std::string>{(dir / "gate_counts.csv").string()});
    EXPECT_FALSE(std::filesystem::exists(dir / "populations.csv"));
    // sepal-cli gate s1.fcs s2.fcs --gates G --counts: each file evaluated on its own.
    std::vector<SampleGateCounts> expected;
    for (const io::Table& t : tables)
        expected.push_back(
            {sampleName(t.source), gateCounts(live.tree, evaluateGates(live.tree, t))});
    std::ifstream in(written[0]);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, gateCountsCsv(expected));
    EXPECT_EQ(expected[0].counts[0].events + expected[1].counts[0].events, ws.state().gating.kept);
    // The whole data's counts (the Gates window's), summed from the samples', are those of one
    // pass over every cell.
    const Gating& gating = ws.state().gating;
    const std::vector<GateCount> whole = gateCounts(gating.gates.tree, gating.members);
    ASSERT_EQ(gating.counts.size(), whole.size());
    for (size_t p = 0; p < whole.size(); ++p) {
        EXPECT_EQ(gating.counts[p].events, whole[p].events) << whole[p].path;
        EXPECT_EQ(gating.counts[p].parentEvents, whole[p].parentEvents) << whole[p].path;
        EXPECT_EQ(gating.counts[p].allEvents, whole[p].allEvents) << whole[p].path;
    }
    std::filesystem::remove_all(dir);
}

// The Compare window says why the samples cannot be compared without a command line's flag.
TEST(Workspace, AComparisonTheSamplesCannotMakeIsRefusedInTheWindowsWords) {
    if (!ComparisonService::available()) GTEST_SKIP() << "this build has no statistics";
    const auto dir = testFolder("app-compare-words");
    Workspace ws("cpu");
    openSamplesWithMetadata(ws, 4, 800, dir,
                            "file,condition\ns1.fcs,a\ns2.fcs,a\ns3.fcs,a\ns4.fcs,b\n");
    ws.populations().fromLandmarks(4);
    settle(ws);
    ws.comparison().choose({"condition", "b", "a", "", "edgeR"});
    // The window's user chose from lists: the message names the data, not a flag.
    try {
        ws.comparison().exportTables((dir / "stats").string());
        FAIL() << "a condition of one sample was compared";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "condition b has 1 sample; a group needs at least two to be compared");
    }
    std::filesystem::remove_all(dir);
}

// Metadata that can no longer make the comparison (every sample one condition) leaves the
// window its error alone: the last result, of other metadata, is not shown beside it; and the
// refused export makes no folder.
TEST(Workspace, AComparisonThatFailsShowsNoOlderResult) {
    if (!ComparisonService::available()) GTEST_SKIP() << "this build has no statistics";
    const auto dir = testFolder("app-compare-stale");
    std::ofstream(dir / "one.csv") << "file,condition\ns1.fcs,a\ns2.fcs,a\ns3.fcs,a\ns4.fcs,a\n";
    Workspace ws("cpu");
    openSamplesWithMetadata(ws, 4, 800, dir,
                            "file,condition\ns1.fcs,a\ns2.fcs,a\ns3.fcs,b\ns4.fcs,b\n");
    ws.populations().fromLandmarks(4);
    ws.comparison().choose({"condition", "b", "a", "", "edgeR"});
    const auto compared = [&] {
        for (int i = 0; i < 20000; ++i) {
            ws.comparison().want();
            ws.frame(8.0);
            if (i > 2 && !ws.comparison().computing()) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    };
    compared();
    ASSERT_TRUE(ws.comparison().current().valid) << ws.comparison().error();
    ws.data().openSampleMetadata((dir / "one.csv").string());
    compared();
    EXPECT_NE(ws.comparison().error().find("nothing to compare"), std::string::npos)
        << ws.comparison().error();
    EXPECT_FALSE(ws.comparison().current().valid);
    EXPECT_THROW(ws.comparison().exportTables((dir / "stats").string()), InputError);
    EXPECT_FALSE(std::filesystem::exists(dir / "stats"));
    std::filesystem::remove_all(dir);
}

// Sample metadata that lists none of the open samples is refused with the names on both sides,
// and the metadata the samples had stays (it made every sample "(not listed)" without a word).
TEST(Workspace, SampleMetadataListingNoOpenSampleIsRefusedAndTheOldKept) {
    const auto dir = testFolder("app-metadata-none");
    std::ofstream(dir / "other.csv") << "file,condition\nP9_unstim.fcs,a\n";
    Workspace ws("cpu");
    openSamplesWithMetadata(ws, 2, 500, dir, "file,condition\ns1.fcs,a\ns2.fcs,b\n");
    ASSERT_EQ(ws.state().metadata.files.size(), 2u);
    ws.data().openSampleMetadata((dir / "other.csv").string());
    EXPECT_EQ(ws.state().metadata.files, (std::vector<std::string>{"s1.fcs", "s2.fcs"}));
    ASSERT_FALSE(ws.log().empty());
    const LogEntry& last = ws.log().back();
    EXPECT_EQ(last.level, LogEntry::Error);
    EXPECT_NE(last.text.find("other.csv lists none of the open samples: its files are "
                             "P9_unstim.fcs; the open samples are s1.fcs, s2.fcs"),
              std::string::npos)
        << last.text;
    std::filesystem::remove_all(dir);
}

// The Colour window colours by a state marker kept beside the embedded ones (pSTAT5: where a
// stimulation changes a cell's function), as sepal-cli embed --color does; a session keeps it.
TEST(Workspace, CellsAreColouredByAStateMarkerBesideTheEmbeddedOnes) {
    const std::string file = writeDemoFcs("state-colour", 3000, 1, true);
    const auto dir = std::filesystem::path(file).parent_path();
    Workspace ws("cpu");
    ws.data().openFiles({file});
    settle(ws);
    const StateColumns& state = ws.populations().stateColumns();
    const auto at = std::find(state.markers.begin(), state.markers.end(), "pSTAT5");
    ASSERT_NE(at, state.markers.end()) << "the demo's state markers are not kept beside";
    const size_t column = size_t(at - state.markers.begin());
    ColourSettings c = ws.state().colour;
    c.mode = ColourMode::Marker;
    c.stateColumn = int(column);
    ws.edits().setColour(c);
    settle(ws);
    const ColourKey& key = ws.colourKey();
    EXPECT_EQ(key.title, "pSTAT5");
    ASSERT_LT(key.low, key.high);
    // Each cell in the colour of its own pSTAT5 value on the key's range.
    const auto& rgba = ws.colours();
    for (size_t i = 0; i < 3000; i += 97) {
        const float t = (state.values.at(i, column) - key.low) / (key.high - key.low);
        const auto expected = colourMap(c.map, t);
        for (int k = 0; k < 3; ++k) EXPECT_EQ(rgba[4 * i + size_t(k)], expected[size_t(k)]) << i;
    }
    // A session keeps the state marker the cells are coloured by.
    const std::string path = (dir / "session.json").string();
    ws.exports().saveSession(path, {0, 0, 1});
    Workspace again("cpu");
    again.exports().loadSession(path);
    settle(again);
    EXPECT_EQ(again.state().colour.stateColumn, int(column));
    EXPECT_EQ(again.colourKey().title, "pSTAT5");
    std::filesystem::remove_all(dir);
}

// Samples of two panels are refused with what differs (Nd142Di was CD4 in one and CD19 in the
// other, and both were embedded as one column); what was open stays.
TEST(Workspace, SamplesOfAnotherPanelAreRefusedAndWhatWasOpenStays) {
    io::Table first = demo::makeDemoTable(600, 1), other = demo::makeDemoTable(600, 2);
    first.source = "a.fcs", other.source = "b.fcs";
    for (io::Channel& ch : other.channels)
        if (ch.marker == "CD4") ch.marker = "CD19";
    Workspace ws("cpu");
    ws.data().openTables({first});
    settle(ws);
    try {
        ws.data().openTables({other}, true);
        FAIL() << "a sample of another panel was added";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("Nd142Di is CD4 in a.fcs and CD19 in b.fcs"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(ws.state().data.samples.size(), 1u);
    EXPECT_EQ(ws.state().data.events(), 600u);
}

// A file of 2 events cannot be embedded: the app says so once and settles (the projection's
// failure was logged every frame, 3,000 times, and the picture never settled).
TEST(Workspace, AFileTooSmallToEmbedIsSaidOnceAndTheAppSettles) {
    io::Table tiny = demo::makeDemoTable(2, 1);
    tiny.source = "tiny.fcs";
    Workspace ws("cpu");
    ws.data().openTables({tiny});
    settle(ws);
    for (int i = 0; i < 50; ++i) ws.frame(8.0);
    EXPECT_TRUE(ws.idle());
    size_t projection = 0, training = 0;
    for (const LogEntry& e : ws.log()) {
        projection += e.text.find("projection failed") != std::string::npos;
        training += e.text.find("an embedding needs at least 4 events") != std::string::npos;
    }
    EXPECT_LE(projection, 1u);
    EXPECT_EQ(training, 1u);
}

// The app's exports never replace a file the data came from (nor its session's sources).
TEST(Workspace, ExportsRefuseToWriteOverAnInput) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sepal-app-overwrite-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string input = (dir / "cells.csv").string();
    {
        std::ofstream out(input);
        out << "a,b,c\n";
        for (int i = 0; i < 400; ++i) out << i % 7 << "," << (i * 3) % 11 << "," << i % 5 << "\n";
    }
    const auto size = std::filesystem::file_size(input);
    Workspace ws("cpu");
    ws.data().openTables({readInput(input)});
    settle(ws);
    EXPECT_THROW(ws.exports().events(input), InputError);
    EXPECT_EQ(std::filesystem::file_size(input), size);
    EXPECT_NO_THROW(ws.exports().events((dir / "out.csv").string()));
    std::filesystem::remove_all(dir);
}

TEST(Sweepers, BothGiveTheProjectionOfEveryPointAfterEachModelChange) {
    auto table = makeSyntheticTable(20000);
    auto points = std::make_shared<const Matrix>(table.values);
    auto owner = openSynthetic(20000);
    Workspace& ws = *owner;
    const LandmarkModel start = ws.state().model;
    EmbedParams params;
    auto cpu = makeCpuProjector();
    auto reference = makeReferenceProjector();
    std::vector<float> expected(2 * points->rows);
    for (Projector* projector : {cpu.get(), reference.get()})
        for (auto* sweeper :
             {static_cast<Sweeper*>(new FrameSweeper), static_cast<Sweeper*>(new ThreadSweeper)}) {
            std::unique_ptr<Sweeper> sweeperOwner(sweeper);
            sweeper->reset(points, false);
            LandmarkModel model = start;
            // 0: the first sweep; 1, 2: drags (the CPU backend's neighbour cache re-projects only
            // the cells listing the landmark); 3: a training step (every cell); 4: a drag again;
            // 5: an undo of everything.
            for (int change = 0; change < 6; ++change) {
                if (change == 1 || change == 2 || change == 4) {
                    model.low[2 * size_t(change)] += 0.5f;
                    ++model.lowVersion;
                } else if (change == 3) {
                    for (float& v : model.high) v *= 1.01f;
                    ++model.highVersion;
                } else if (change == 5) {
                    model = start;
                    model.highVersion += 10, model.lowVersion += 10;
                }
                std::vector<Range> ranges;
                size_t covered = 0;
                for (int i = 0; i < 5000 && (i < 2 || !sweeper->settled()); ++i) {
                    sweeper->step(model, params, *projector, 2.0, ranges);
                    std::this_thread::sleep_for(std::chrono::microseconds(200));
                }
                ASSERT_TRUE(sweeper->settled());
                for (const auto& r : ranges) covered += r.count;
                const bool partial =
                    projector == cpu.get() && (change == 1 || change == 2 || change == 4);
                if (partial)
                    EXPECT_LT(covered, points->rows) << "change " << change;
                else
                    EXPECT_GE(covered, points->rows) << "change " << change;
                projector->project(points->data(), points->rows, points->cols, model, params,
                                   expected.data());
                ASSERT_EQ(sweeper->positions().size(), expected.size());
                size_t differ = 0, first = 0;
                for (size_t i = 0; i < expected.size(); ++i)
                    if (std::memcmp(&sweeper->positions()[i], &expected[i], sizeof(float)) != 0)
                        first = differ++ ? first : i;
                ASSERT_EQ(differ, 0u)
                    << "values differ after change " << change << " with " << projector->name()
                    << (dynamic_cast<FrameSweeper*>(sweeper) ? " in the frame" : " on a thread")
                    << ", the first at cell " << first / 2;
            }
            EXPECT_EQ(sweeper->cacheState().second, "");
            if (projector == cpu.get()) EXPECT_GT(sweeper->cacheState().first, 0u);
        }
}

/// Cells spread over the clip square (and a little beyond), colours varied, some gated.
struct SplatCells {
    std::vector<float> xy;      ///< world positions
    std::vector<uint8_t> rgba;  ///< colours
};
SplatCells spreadCells(size_t n) {
    SplatCells c{std::vector<float>(2 * n), std::vector<uint8_t>(4 * n)};
    for (size_t i = 0; i < n; ++i) {
        c.xy[2 * i] = std::sin(float(i) * 0.77f) * 1.05f;
        c.xy[2 * i + 1] = std::cos(float(i) * 1.31f) * 1.05f;
        for (int k = 0; k < 4; ++k) c.rgba[4 * i + size_t(k)] = uint8_t((i * (k + 3) + 40) % 256);
        if (i % 17 == 0) c.rgba[4 * i + 3] = 0;
    }
    return c;
}

/// CpuSplats's picture of all the cells in one draw.
std::vector<uint8_t> splatPicture(const std::vector<float>& xy, const std::vector<uint8_t>& rgba,
                                  int w, int h, float size, float alpha) {
    const float scale[2] = {1, 1}, offset[2] = {0, 0};
    render::CpuSplats s;
    s.begin(w, h);
    s.draw(xy.data(), rgba.data(), 0, xy.size() / 2, scale, offset, size);
    std::vector<uint8_t> picture;
    s.finish(picture, alpha);
    return picture;
}

TEST(CpuSplats, ASplatIsRoundWithASoftRimAndTheOrderDoesNotMatter) {
    // World = clip space (scale 1, offset 0) on a 40 x 20 picture: (0, 0) is at pixel x 19.5.
    const float scale[2] = {1, 1}, offset[2] = {0, 0};
    render::CpuSplats one;
    one.begin(40, 20);
    const float centre[2] = {0.0f, 0.0f};
    const uint8_t red[4] = {255, 0, 0, 255};
    one.draw(centre, red, 0, 1, scale, offset, 8.0f);
    std::vector<uint8_t> px;
    one.finish(px, 1.0f);
    const auto at = [&](int x, int y, int c) { return int(px[(size_t(y) * 40 + x) * 4 + c]); };
    EXPECT_EQ(at(20, 10, 0), 255);  // the centre: opaque, premultiplied red
    EXPECT_EQ(at(20, 10, 3), 255);
    EXPECT_EQ(at(20, 10, 1), 0);
    EXPECT_EQ(at(24, 10, 3), 0);  // outside the diameter of 8
    EXPECT_EQ(at(23, 13, 3), 0);  // the square's corner is not in the disc
    // Half opaque: one splat's alpha at the centre, less on the rim (r^2 = 0.77).
    one.finish(px, 0.5f);
    EXPECT_EQ(at(20, 10, 3), 128);
    EXPECT_GT(at(23, 10, 3), 0);
    EXPECT_LT(at(23, 10, 3), 128);
    // Many overlapping splats: two threads or one, and any order, give the same bytes.
    const size_t n = 20000;
    auto [xy, rgba] = spreadCells(n);
    std::vector<uint8_t> pictures[2];
    const int threads = omp_get_max_threads();
    for (int t = 0; t < 2; ++t) {
        omp_set_num_threads(t == 0 ? 1 : 2);
        render::CpuSplats s;
        s.begin(64, 48);
        s.draw(xy.data(), rgba.data(), 0, n / 2, scale, offset, 3.0f);
        s.draw(xy.data(), rgba.data(), n / 2, n - n / 2, scale, offset, 3.0f);
        s.finish(pictures[t], 0.7f);
    }
    omp_set_num_threads(threads);
    EXPECT_EQ(pictures[0], pictures[1]);
    std::vector<float> reversedXy(xy.size());
    std::vector<uint8_t> reversedRgba(rgba.size());
    for (size_t i = 0; i < n; ++i) {
        std::copy_n(&xy[2 * (n - 1 - i)], 2, &reversedXy[2 * i]);
        std::copy_n(&rgba[4 * (n - 1 - i)], 4, &reversedRgba[4 * i]);
    }
    EXPECT_EQ(splatPicture(reversedXy, reversedRgba, 64, 48, 3.0f, 0.7f), pictures[0]);
    EXPECT_GT(
        std::count_if(pictures[0].begin(), pictures[0].end(), [](uint8_t v) { return v > 0; }),
        1000);
}

/// The splat rules spelled out once more, one cell after another over the whole picture
/// (CpuSplats adds band by band of rows): integer sums of colour x coverage and of coverage,
/// resolved to 1 - (1 - alpha)^(coverage / 16) and the coverage-weighted mean colour.
std::vector<uint8_t> referenceSplats(const std::vector<float>& xy, const std::vector<uint8_t>& rgba,
                                     int w, int h, float size, float alpha) {
    std::vector<uint32_t> sums(size_t(w) * size_t(h) * 4, 0);
    const float half = 0.5f * size, inverseHalf = 1.0f / half;
    for (size_t i = 0; i < xy.size() / 2; ++i) {
        if (rgba[4 * i + 3] == 0) continue;
        const float cx = xy[2 * i] * (0.5f * float(w)) + (0.5f * float(w) - 0.5f);
        const float cy = xy[2 * i + 1] * (0.5f * float(h)) + (0.5f * float(h) - 0.5f);
        if (!std::isfinite(cx) || !std::isfinite(cy)) continue;
        const float units = 16.0f * float(rgba[4 * i + 3]) / 255.0f;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                if (float(x) < cx - half || float(x) > cx + half) continue;
                if (float(y) < cy - half || float(y) > cy + half) continue;
                const float dx = (float(x) - cx) * inverseHalf, dy = (float(y) - cy) * inverseHalf;
                const float r2 = dx * dx + dy * dy;
                if (r2 > 1.0f) continue;
                float cover = 1.0f;
                if (r2 > 0.6f) {
                    const float u = (r2 - 0.6f) * 2.5f;
                    cover = 1.0f - u * u * (3.0f - 2.0f * u);
                }
                const uint32_t q = uint32_t(std::nearbyint(cover * units));
                uint32_t* p = &sums[(size_t(y) * size_t(w) + size_t(x)) * 4];
                for (int c = 0; c < 3; ++c) p[c] += rgba[4 * i + size_t(c)] * q;
                p[3] += q;
            }
    }
    std::vector<uint8_t> picture(sums.size(), 0);
    const float logKeep = std::log2(1.0f - alpha);
    for (size_t k = 0; k < sums.size(); k += 4) {
        if (sums[k + 3] == 0) continue;
        const float a = 1.0f - std::exp2(float(sums[k + 3]) * (logKeep / 16.0f));
        const float toByte = a / (255.0f * float(sums[k + 3]));
        for (int c = 0; c < 3; ++c)
            picture[k + size_t(c)] = uint8_t(
                std::nearbyint(std::clamp(float(sums[k + size_t(c)]) * toByte, 0.0f, 1.0f) * 255));
        picture[k + 3] = uint8_t(std::nearbyint(std::clamp(a, 0.0f, 1.0f) * 255.0f));
    }
    return picture;
}

TEST(CpuSplats, BandsOfRowsGiveTheCellByCellPicture) {
    // 97 x 61 pixels split between the threads' bands; cells across the bands' edges, beyond the
    // picture, gated (alpha 0), NaN, in two draws.
    const int w = 97, h = 61;
    const size_t n = 6000;
    auto [xy, rgba] = spreadCells(n);
    xy[2 * 5] = NAN;
    const float scale[2] = {1, 1}, offset[2] = {0, 0};
    for (float size : {1.0f, 3.0f, 7.5f}) {
        render::CpuSplats s;
        s.begin(w, h);
        s.draw(xy.data(), rgba.data(), 0, 2500, scale, offset, size);
        s.draw(xy.data(), rgba.data(), 2500, n - 2500, scale, offset, size);
        std::vector<uint8_t> got;
        s.finish(got, 0.6f);
        const auto want = referenceSplats(xy, rgba, w, h, size, 0.6f);
        size_t differing = 0;
        for (size_t k = 0; k < want.size(); ++k) differing += got[k] != want[k];
        EXPECT_EQ(differing, 0u) << "point size " << size;
    }
}

TEST(CpuSplats, TakingOutAndPuttingBackTheChangedCellsGivesTheFreshPicture) {
    // What a drag does to the point layer: some cells move, some change colour, a cell is
    // gated, another ungated, one becomes NaN and one comes back from NaN.
    const int w = 83, h = 57;
    const size_t n = 9000;
    auto [xy, rgba] = spreadCells(n);
    xy[2 * 40 + 1] = NAN;
    const float scale[2] = {1, 1}, offset[2] = {0, 0};
    render::CpuSplats s;
    s.begin(w, h);
    s.draw(xy.data(), rgba.data(), 0, n, scale, offset, 3.0f);
    std::vector<float> movedXy = xy;
    std::vector<uint8_t> movedRgba = rgba;
    for (size_t i = 0; i < n; i += 7) movedXy[2 * i] += 0.01f * float(i % 5 + 1);
    for (size_t i = 3; i < n; i += 50) movedRgba[4 * i] ^= 0x5a;
    movedRgba[4 * 34 + 3] = 0;    // gated
    movedRgba[4 * 17 + 3] = 200;  // ungated (17 is a multiple of 17)
    movedXy[2 * 41] = NAN;
    movedXy[2 * 40 + 1] = 0.25f;
    size_t changed = 0;
    for (size_t i = 0; i < n; ++i)
        changed += std::memcmp(&xy[2 * i], &movedXy[2 * i], 8) != 0 ||
                   std::memcmp(&rgba[4 * i], &movedRgba[4 * i], 4) != 0;
    ASSERT_GT(changed, 1400u);
    const size_t counted = s.update(xy.data(), rgba.data(), movedXy.data(), movedRgba.data(), 0,
                                    5000, scale, offset, 3.0f) +
                           s.update(xy.data(), rgba.data(), movedXy.data(), movedRgba.data(), 5000,
                                    n - 5000, scale, offset, 3.0f);
    EXPECT_EQ(counted, changed);
    std::vector<uint8_t> updated;
    s.finish(updated, 0.6f);
    EXPECT_EQ(updated, splatPicture(movedXy, movedRgba, w, h, 3.0f, 0.6f));
    EXPECT_NE(updated, splatPicture(xy, rgba, w, h, 3.0f, 0.6f));
}

TEST(Camera, FitLeavesTheColourKeyCornerClearAndKeepsThePictureLarge) {
    render::Camera cam;
    cam.setViewport(650, 780);  // the canvas between the side panels
    const render::Bounds square{-1, -1, 1, 1};
    // A key of 200 x 300 pixels would cover the square's lower right corner: a strip on the
    // right leaves 450 x 780, one at the bottom 650 x 480, and the bottom keeps it larger.
    cam.fitClearOfCorner(square, 200, 300);
    const float bottom = 480 * (1 - 2 * render::kFitMargin) / 2;
    EXPECT_NEAR(1 / cam.unitsPerPixel(), bottom, 1e-3);
    auto centre = cam.toScreen(0, 0), corner = cam.toScreen(1, -1);
    EXPECT_NEAR(centre[0], 325, 1e-3);
    EXPECT_NEAR(centre[1], 240, 1e-3);
    EXPECT_LT(corner[1], 780 - 300);
    auto topLeft = cam.toScreen(-1, 1);
    EXPECT_GT(topLeft[0], 0);
    EXPECT_GT(topLeft[1], 0);

    // A wide picture in the same view: the strip on the right now keeps it larger.
    const render::Bounds wide{-2, -0.5f, 2, 0.5f};
    cam.fitClearOfCorner(wide, 200, 700);
    EXPECT_NEAR(1 / cam.unitsPerPixel(), 450 * (1 - 2 * render::kFitMargin) / 4, 1e-3);
    EXPECT_LT(cam.toScreen(2, -0.5f)[0], 650 - 200);

    // A key beside the picture changes nothing: the fit is the plain one.
    render::Camera plain;
    plain.setViewport(650, 780);
    plain.fit(square);
    cam.fitClearOfCorner(square, 30, 60);
    EXPECT_EQ(cam.state(), plain.state());
    cam.fitClearOfCorner(square, 0, 0);
    EXPECT_EQ(cam.state(), plain.state());
}

TEST(Undo, SliderDragsFoldIntoOneStepUntilSealed) {
    State state;
    UndoStack undo;
    ViewSettings v = state.view;
    for (float size : {4.0f, 5.0f, 6.0f}) {
        ViewSettings next = state.view;
        next.pointSize = size;
        undo.push(std::make_unique<ChangeCommand<ViewSettings>>(&State::view, Part::View,
                                                                state.view, next, "Size", "size"),
                  state);
    }
    undo.seal();
    ViewSettings next = state.view;
    next.alpha = 0.2f;
    undo.push(std::make_unique<ChangeCommand<ViewSettings>>(&State::view, Part::View, state.view,
                                                            next, "Opacity", "alpha"),
              state);
    EXPECT_EQ(state.view.pointSize, 6.0f);
    ASSERT_TRUE(undo.undo(state));
    EXPECT_EQ(state.view.alpha, v.alpha);
    EXPECT_EQ(state.view.pointSize, 6.0f);
    ASSERT_TRUE(undo.undo(state));
    EXPECT_EQ(state.view.pointSize, v.pointSize);  // the three size edits were one step
    EXPECT_FALSE(undo.undo(state));
    ASSERT_TRUE(undo.redo(state));
    EXPECT_EQ(state.view.pointSize, 6.0f);
    EXPECT_EQ(undo.redoLabel(), "Opacity");
}

TEST(Workspace, PositionsMatchTheProjectorAndFollowALandmarkDrag) {
    auto owner = openSynthetic(4000);
    Workspace& ws = *owner;
    settle(ws);
    EXPECT_EQ(ws.positions(), directProjection(ws));
    ws.edits().beginLandmarkDrag();
    const auto& m = ws.state().model;
    ws.edits().dragLandmarks({0}, {m.low[0] + 1.0f, m.low[1]});
    ws.edits().endLandmarkDrag("Move landmark 0");
    settle(ws);
    EXPECT_EQ(ws.positions(), directProjection(ws));
    EXPECT_EQ(ws.edits().undoStack().undoLabel(), "Move landmark 0");
    auto moved = ws.state().model.low[0];
    ASSERT_TRUE(ws.edits().undo());
    EXPECT_NE(ws.state().model.low[0], moved);
    settle(ws);
    EXPECT_EQ(ws.positions(), directProjection(ws));
}

TEST(Workspace, ExternalPositionsSettleTheSweepAtOnce) {
    // The GPU path without interop hands its host copy of new data's positions to the sweeper
    // in the frame it projects them: the Stats bar must say "settled" in that frame, not one
    // frame later (a screenshot taken then showed "sweeping").
    HostResident device;
    HostPositions drawn;
    drawn.mappable = false;
    Workspace ws("cpu");
    ws.projectOnDevice(&device, &drawn);
    std::vector<io::Table> tables;
    tables.push_back(makeSyntheticTable(3000));
    ws.data().openTables(std::move(tables));
    ASSERT_TRUE(ws.frame(8.0).deviceMoved);  // the new data's first projection
    EXPECT_EQ(ws.stats().sweepProgress, 1.0);
    EXPECT_EQ(ws.positions(), directProjection(ws));
    EXPECT_EQ(drawn.xy, ws.positions());
}

TEST(Workspace, BrushCountsTheCellsInsideThePolygonAndUndoRemovesThem) {
    auto owner = openSynthetic(3000);
    Workspace& ws = *owner;
    settle(ws);
    const auto& xy = ws.positions();
    float cx = 0, cy = 0;
    for (size_t i = 0; i < 3000; ++i) cx += xy[2 * i] / 3000, cy += xy[2 * i + 1] / 3000;
    std::vector<float> square = {cx - 1, cy - 1, cx + 1, cy - 1, cx + 1, cy + 1, cx - 1, cy + 1};
    size_t inside = 0;
    for (size_t i = 0; i < 3000; ++i)
        inside += std::abs(xy[2 * i] - cx) < 1 && std::abs(xy[2 * i + 1] - cy) < 1;
    EXPECT_EQ(ws.populations().brush(square, "core"), inside);
    ASSERT_EQ(ws.populations().sizes(), std::vector<size_t>{inside});
    ws.edits().undo();  // the switch to population colours
    ws.edits().undo();  // the brush
    EXPECT_TRUE(ws.state().populations.groups.empty());
}

// A drawn map's recipe trains the landmarks the user placed: a change of the markers starts
// that training at once, before the scheduler has seen the new data (which makes its trainer
// again), and the next frames train in the new space.
TEST(Workspace, ChangingTheMarkersUnderADrawnMapTrainsItInTheNewSpace) {
    auto owner = openSynthetic(2000);
    Workspace& ws = *owner;
    settle(ws);
    TrainingSettings t = ws.state().training;
    t.recipe = "drawn";
    ws.training().setSettings(t);
    ws.training().start();  // a trainer made for the markers as they are
    ws.frame(8.0);
    ws.training().pause();
    TransformPipeline p = ws.state().pipeline;
    p.steps.erase(p.steps.begin());
    ws.data().setPipeline(p);
    ASSERT_TRUE(ws.training().running());
    for (int frame = 0; frame < 5 && ws.training().running(); ++frame) ws.frame(8.0);
    EXPECT_EQ(ws.state().model.dim, ws.state().data.columns.size());
    for (float v : ws.state().model.high) ASSERT_TRUE(std::isfinite(v));
    ws.training().pause();
    settle(ws);
    EXPECT_EQ(ws.positions(), directProjection(ws));
}

TEST(Workspace, AddAndRemoveLandmarks) {
    auto owner = openSynthetic(2000);
    Workspace& ws = *owner;
    size_t g = ws.state().model.count();
    ws.edits().addLandmark(0.1f, 0.2f);
    ASSERT_EQ(ws.state().model.count(), g + 1);
    EXPECT_EQ(ws.state().model.low[2 * g], 0.1f);
    // Its data-space position lies between existing landmarks (a weighted mean of three).
    for (size_t j = 0; j < ws.state().model.dim; ++j)
        EXPECT_TRUE(std::isfinite(ws.state().model.highRow(g)[j]));
    ws.edits().removeLandmarks({0, 1});
    EXPECT_EQ(ws.state().model.count(), g - 1);
    ws.edits().undo();
    EXPECT_EQ(ws.state().model.count(), g + 1);
}

TEST(Workspace, ChangingTheMarkersRebuildsDataAndModelAndUndoRestoresBoth) {
    auto owner = openSynthetic(2000);
    Workspace& ws = *owner;
    settle(ws);
    auto columns = ws.state().data.columns;
    auto model = ws.state().model;
    TransformPipeline p = ws.state().pipeline;
    p.steps.erase(p.steps.begin());
    ws.data().setPipeline(p);
    ASSERT_EQ(ws.state().data.columns.size(), columns.size() - 1);
    EXPECT_EQ(ws.state().model.dim, columns.size() - 1);
    auto fresh = ws.state().model.high;
    // The new space is trained again at once (a second step), as a file is on opening.
    ASSERT_NE(ws.training().recipeRunning(), nullptr);
    settle(ws);
    EXPECT_EQ(ws.edits().undoStack().undoLabel(), "Train k-means + t-SNE (default)");
    EXPECT_EQ(ws.positions(), directProjection(ws));
    ASSERT_TRUE(ws.edits().undo());
    EXPECT_EQ(ws.state().model.high, fresh);
    ASSERT_TRUE(ws.edits().undo());
    EXPECT_EQ(ws.state().data.columns, columns);
    EXPECT_EQ(ws.state().model.high, model.high);
    settle(ws);
    EXPECT_EQ(ws.positions(), directProjection(ws));
    ASSERT_TRUE(ws.edits().redo());
    EXPECT_EQ(ws.state().model.high, fresh);
    ASSERT_TRUE(ws.edits().redo());
    EXPECT_EQ(ws.state().model.dim, columns.size() - 1);
    EXPECT_NE(ws.state().model.high, fresh);
}

TEST(Workspace, SessionRoundTripAndABadSessionKeepsWhatIsOpen) {
    auto dir =
        std::filesystem::temp_directory_path() / ("sepal-app-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto owner = openSynthetic(2500);
    Workspace& ws = *owner;
    settle(ws);
    ws.edits().addLandmark(0.3f, -0.2f);
    settle(ws);
    const auto& xy = ws.positions();
    ws.populations().brush({xy[0] - 1, xy[1] - 1, xy[0] + 1, xy[1] - 1, xy[0] + 1, xy[1] + 1},
                           "tri");
    std::string path = (dir / "s.json").string();
    ws.exports().saveSession(path, {1, 2, 30});
    State before = ws.state();
    ASSERT_EQ(before.populations.regions.strokes.size(), 1u);  // the stroke travels too

    Workspace other("cpu");
    auto camera = other.exports().loadSession(path);
    EXPECT_EQ(camera, (std::array<float, 3>{1, 2, 30}));
    EXPECT_EQ(other.state().model.high, before.model.high);
    EXPECT_EQ(other.state().model.low, before.model.low);
    EXPECT_EQ(other.state().populations, before.populations);
    EXPECT_EQ(other.state().colour, before.colour);
    settle(other);
    EXPECT_EQ(other.positions(), directProjection(other));

    // A landmark added after the strokes: the regions no longer fit the landmarks, so the
    // session keeps the populations without them (and still opens).
    ws.edits().addLandmark(-0.3f, 0.2f);
    settle(ws);
    ws.exports().saveSession(path, {1, 2, 30});
    Workspace third("cpu");
    third.exports().loadSession(path);
    EXPECT_EQ(third.state().populations.groups, ws.state().populations.groups);
    EXPECT_TRUE(third.state().populations.regions.empty());

    std::ofstream(dir / "bad.json") << "{\"format\": \"sepal-session\", \"files\": [";
    EXPECT_THROW(other.exports().loadSession((dir / "bad.json").string()), InputError);
    EXPECT_EQ(other.state().data.events(), 2500u);
    EXPECT_EQ(other.state().model.low, before.model.low);
    std::filesystem::remove_all(dir);
}

TEST(Workspace, ASessionOpensFromAnyFolderAndFindsItsDataBesideIt) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sepal-session-paths-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto before = std::filesystem::current_path();
    io::writeCsv((dir / "d.csv").string(), makeSyntheticTable(800));
    // Opened by a relative name from the data's folder, as a user in a terminal would.
    std::filesystem::current_path(dir);
    Workspace ws("cpu");
    std::vector<io::Table> tables;
    tables.push_back(readAnyTable("d.csv"));
    ws.data().openTables(std::move(tables));
    settle(ws);
    ws.exports().saveSession("s.json", {0, 0, 10});
    nlohmann::json session = nlohmann::json::parse(std::ifstream(dir / "s.json"));
    EXPECT_EQ(session.at("files").at(0).get<std::string>(), (dir / "d.csv").string());
    // From another folder: the absolute path, then a hand-written relative one beside it.
    std::filesystem::current_path(dir.parent_path());
    Workspace other("cpu");
    other.exports().loadSession((dir / "s.json").string());
    EXPECT_EQ(other.state().data.events(), 800u);
    session["files"] = {"d.csv"};
    std::ofstream(dir / "relative.json") << session.dump();
    Workspace third("cpu");
    third.exports().loadSession((dir / "relative.json").string());
    EXPECT_EQ(third.state().data.events(), 800u);
    // The session and its data moved together to another folder: found there by file name.
    const auto moved = dir.parent_path() / (dir.filename().string() + "-moved");
    std::filesystem::create_directories(moved);
    std::filesystem::copy_file(dir / "s.json", moved / "s.json");
    std::filesystem::copy_file(dir / "d.csv", moved / "d.csv");
    std::filesystem::remove(dir / "d.csv");
    Workspace fourth("cpu");
    fourth.exports().loadSession((moved / "s.json").string());
    EXPECT_EQ(fourth.state().data.events(), 800u);
    std::filesystem::copy_file(moved / "d.csv", dir / "d.csv");
    std::filesystem::remove_all(moved);
    // What is wrong is said: a data file gone, no session file, a file that is not JSON.
    auto errorOf = [&](const std::string& path) {
        try {
            Workspace("cpu").exports().loadSession(path);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    session["files"] = {"gone.csv"};
    std::ofstream(dir / "gone.json") << session.dump();
    const std::string gone = errorOf((dir / "gone.json").string());
    EXPECT_NE(gone.find("its data file gone.csv is found neither from the current folder"),
              std::string::npos)
        << gone;
    EXPECT_NE(errorOf((dir / "none.json").string()).find("no such file"), std::string::npos);
    std::ofstream(dir / "text.json") << "not json";
    EXPECT_NE(errorOf((dir / "text.json").string()).find("it is not valid JSON"),
              std::string::npos);
    std::filesystem::current_path(before);
    std::filesystem::remove_all(dir);
}

TEST(Workspace, AVersion2SessionsKmeansRefinesWithTheOnlineKmeansItNamed) {
    // Version 2 called the online k-means "kmeans"; version 3 gave that name to Lloyd's.
    auto dir = std::filesystem::temp_directory_path() /
               ("sepal-app-test-v2-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto owner = openSynthetic(1000);
    Workspace& ws = *owner;
    settle(ws);
    TrainingSettings training = ws.state().training;
    training.trainer = trainer_name::kKmeans;
    ws.training().setSettings(training);
    const std::string path = (dir / "s.json").string();
    ws.exports().saveSession(path, {0, 0, 10});
    nlohmann::json session = nlohmann::json::parse(std::ifstream(path));
    EXPECT_EQ(session.at("version"), 3);
    Workspace now("cpu");
    now.exports().loadSession(path);
    EXPECT_EQ(now.state().training.trainer, trainer_name::kKmeans);
    session["version"] = 2;
    std::ofstream(path) << session.dump();
    Workspace before("cpu");
    before.exports().loadSession(path);
    EXPECT_EQ(before.state().training.trainer, trainer_name::kOnlineKmeans);
    std::filesystem::remove_all(dir);
}

// What a document edit may change, comparable as a whole.
struct Edited {
    std::vector<float> high, low;
    std::vector<uint8_t> locked;
    int k;
    float smooth, adjust;
    ColourSettings colour;
    ViewSettings view;
    TrainingSettings training;
    Populations populations;
    std::string pipeline;
    std::vector<std::string> columns;
    bool operator==(const Edited&) const = default;
};

Edited edited(const State& s) {
    return {s.model.high,
            s.model.low,
            s.model.locked,
            s.embed.k,
            s.embed.smooth,
            s.embed.adjust,
            s.colour,
            s.view,
            s.training,
            s.populations,
            s.pipeline.toJson().dump(),
            s.data.columns};
}

// Every edit the document offers: applied, undone (everything it touched is as before) and
// redone (everything is as after), each on top of the ones before it.
TEST(Document, EveryEditIsUndoneAndRedoneWhole) {
    Log log;
    Document doc(log);
    openInto(doc, 1500);
    ASSERT_GT(doc.state().model.count(), 8u);
    struct Edit {
        std::string name;
        std::function<void(Document&)> apply;
        int steps = 1;
    };
    const std::vector<Edit> edits = {
        {"colour",
         [](Document& d) {
             ColourSettings c = d.state().colour;
             c.mode = ColourMode::Marker;
             c.column = 2;
             d.setColour(c);
         }},
        {"view",
         [](Document& d) {
             ViewSettings v = d.state().view;
             v.pointSize = 7;
             d.setView(v);
         }},
        {"training",
         [](Document& d) {
             TrainingSettings t = d.state().training;
             t.landmarks = 100;
             d.setTraining(t);
         }},
        {"embed",
         [](Document& d) {
             EmbedParams p = d.state().embed;
             p.k = 5, p.smooth = 1;
             d.setEmbed(p);
         }},
        {"pipeline",
         [](Document& d) {
             TransformPipeline p = d.state().pipeline;
             p.steps.erase(p.steps.begin());
             ASSERT_TRUE(d.setPipeline(p));
         }},
        {"replace model",
         [](Document& d) {
             LandmarkModel m = d.state().model;
             m.low[0] += 1;
             d.replaceModel(m, "Move");
         }},
        {"drag",
         [](Document& d) {
             d.beginLandmarkDrag();
             const LandmarkModel& m = d.state().model;
             d.dragLandmarks({1, 2}, {m.low[2] + 1, m.low[3], m.low[4], m.low[5] - 1});
             d.endLandmarkDrag("Move landmarks 1, 2");
         }},
        {"add landmark", [](Document& d) { d.addLandmark(0.5f, -0.5f); }},
        {"remove landmarks",
         [](Document& d) {
             d.removeLandmarks({0, 3});
         }},
        {"lock",
         [](Document& d) {
             d.setLocked({0, 2}, true);
         }},
        {"reset model", [](Document& d) { d.resetModel(); }},
        {"adopt model",
         [](Document& d) {
             LandmarkModel m = d.state().model;
             for (float& v : m.low) v *= 2;
             d.adoptModel(d.state().pipeline, m, EmbedParams{6, 0.5f, 1}, "Open model");
         }},
        {"adopt trained",
         [](Document& d) {
             LandmarkModel m = d.state().model;
             for (float& v : m.high) v += 0.25f;
             d.adoptTrained(m, EmbedParams{7, 0, 2}, "Train", true);
         }},
        // The brush and the switch to population colours are two steps.
        {"brush",
         [](Document& d) {
             const State& st = d.state();
             std::vector<float> xy(2 * st.data.events());
             makeCpuProjector()->project(st.data.points.data(), st.data.events(),
                                         st.data.points.cols, st.model, st.embed, xy.data());
             EXPECT_GT(d.brush({-1e6f, -1e6f, 1e6f, -1e6f, 0, 1e6f}, "all", xy), 0u);
         },
         2},
        {"edit population",
         [](Document& d) {
             d.editPopulation(0, {"every cell", {9, 8, 7}});
         }},
        {"delete population", [](Document& d) { d.deletePopulation(0); }},
    };
    for (const auto& edit : edits) {
        const Edited before = edited(doc.state());
        edit.apply(doc);
        doc.seal();
        const Edited after = edited(doc.state());
        EXPECT_FALSE(before == after) << edit.name << " changed nothing";
        for (int i = 0; i < edit.steps; ++i) ASSERT_TRUE(doc.undo()) << edit.name;
        EXPECT_TRUE(edited(doc.state()) == before) << edit.name << ": undo left a trace";
        for (int i = 0; i < edit.steps; ++i) ASSERT_TRUE(doc.redo()) << edit.name;
        EXPECT_TRUE(edited(doc.state()) == after) << edit.name << ": redo differs";
    }
    EXPECT_EQ(log.errorCount(), 0u);
}

// The scheduler alone, on a document: the sweep follows the data, a recipe's model comes back
// as one step with a request to fit the view, and a refining run is one "Train" step.
TEST(Scheduler, RecipesAndRefiningRunsComeBackAsOneUndoStepEach) {
    Log log;
    Document doc(log);
    Scheduler scheduler("cpu", doc, log);
    openInto(doc, 2000);
    const auto settleAll = [&] {
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        for (int i = 0; (i < 2 || !scheduler.idle()) && std::chrono::steady_clock::now() < end;
             ++i) {
            scheduler.frame(8.0);
            if (!scheduler.idle()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        ASSERT_TRUE(scheduler.idle());
    };
    const auto projected = [&] {
        const State& st = doc.state();
        std::vector<float> xy(2 * st.data.events());
        makeCpuProjector()->project(st.data.points.data(), st.data.events(), st.data.points.cols,
                                    st.model, st.embed, xy.data());
        return xy;
    };
    settleAll();
    EXPECT_EQ(scheduler.positions(), projected());

    scheduler.runRecipe(true);
    ASSERT_NE(scheduler.recipeRunning(), nullptr);
    settleAll();
    EXPECT_EQ(doc.undoStack().undoLabel(), "Train k-means + t-SNE (default)");
    EXPECT_EQ(doc.fitRequests(), 1u);
    EXPECT_FALSE(doc.untrained());
    EXPECT_EQ(scheduler.positions(), projected());

    const LandmarkModel trained = doc.state().model;
    TrainingSettings t = doc.state().training;
    t.trainer = "som";
    scheduler.retune(t);
    doc.setTraining(t);
    scheduler.startTraining();
    ASSERT_TRUE(scheduler.training());
    for (int i = 0; i < 3 && scheduler.training(); ++i) scheduler.frame(8.0);
    scheduler.pauseTraining();
    EXPECT_EQ(doc.undoStack().undoLabel(), "Train");
    EXPECT_NE(doc.state().model.high, trained.high);
    ASSERT_TRUE(doc.undo());
    EXPECT_EQ(doc.state().model.high, trained.high);
    settleAll();
    EXPECT_EQ(scheduler.positions(), projected());
    EXPECT_EQ(log.errorCount(), 0u);
}

/// The median over landmarks of the data-space distance to the nearest other landmark.
double medianNearestInData(const LandmarkModel& m) {
    std::vector<double> nearest;
    for (size_t a = 0; a < m.count(); ++a) {
        double best = INFINITY;
        for (size_t b = 0; b < m.count(); ++b) {
            if (a == b) continue;
            double s = 0;
            for (size_t t = 0; t < m.dim; ++t) {
                const double e = double(m.highRow(a)[t]) - double(m.highRow(b)[t]);
                s += e * e;
            }
            best = std::min(best, std::sqrt(s));
        }
        nearest.push_back(best);
    }
    std::nth_element(nearest.begin(), nearest.begin() + long(nearest.size() / 2), nearest.end());
    return nearest[nearest.size() / 2];
}

// Sigma counts map spacings: on the recipe's free layout (neighbours about 0.16 apart) a SOM
// run refines the landmarks instead of pulling them all to each cell in turn, which collapsed
// the map (and gave the projection near-duplicate landmarks, its slow exact form).
TEST(Scheduler, SomRunsOnAFreeLayoutKeepTheLandmarksApart) {
    TrainingSettings t;
    t.trainer = "som";
    t.sigma = 1.5f;
    EXPECT_FLOAT_EQ(float(trainerParams(t, 0.1f)["radiusStart"].get<double>()), 0.15f);
    EXPECT_FLOAT_EQ(float(trainerParams(t)["radiusStart"].get<double>()), 1.5f);

    Log log;
    Document doc(log);
    Scheduler scheduler("cpu", doc, log);
    openInto(doc, 3000);
    scheduler.runRecipe(true);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (scheduler.recipeRunning() && std::chrono::steady_clock::now() < end) {
        scheduler.frame(8.0);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(scheduler.recipeRunning(), nullptr);
    const LandmarkModel trained = doc.state().model;
    const float spacing = medianMapSpacing(trained);
    ASSERT_LT(spacing, 0.5f) << "the recipe's layout is a free one";
    const Matrix& points = doc.state().data.points;
    const TrainingData data{points.data(), points.rows, points.cols};
    // The same steps (seeded) with sigma in map spacings and, as before, in layout units.
    const auto spreadAfterSteps = [&](float mapSpacing) {
        LandmarkModel model = trained;
        const auto search = makeCpuNearestSearch();
        const auto trainer = createTrainer(t, *search, mapSpacing);
        for (int i = 0; i < 8; ++i) trainer->step(model, data);
        EXPECT_NE(model.high, trained.high);
        return medianNearestInData(model) / medianNearestInData(trained);
    };
    const double inSpacings = spreadAfterSteps(spacing), inUnits = spreadAfterSteps(1.0f);
    EXPECT_GT(inSpacings, 2.0 * inUnits) << inSpacings << " against " << inUnits;
    EXPECT_GT(inSpacings, 0.2);
    EXPECT_EQ(log.errorCount(), 0u);
}

}  // namespace
}  // namespace sepal::app

namespace sepal::test {
namespace {

/// A folder of its own under the temporary folder, emptied.
std::filesystem::path autosaveDir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sepal-autosave-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir;
}

/// Writes a file with the given text.
void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path) << text;
}

TEST(AutosaveFolder, EachLaunchWritesItsOwnFileAndACrashIsOffered) {
    const auto dir = autosaveDir("crash");
    // A launch that crashed: its file and a marker naming a process that no longer runs.
    std::filesystem::create_directories(dir);
    const auto crashed = dir / "autosave-20260101-120000-999999.json";
    writeText(crashed, "{\"files\": []}");
    writeText(dir / "autosave-20260101-120000-999999.running", "999999\n");
    // A launch that exited cleanly (no marker), and one still running (this process).
    writeText(dir / "autosave-20260101-110000-123.json", "{}");
    writeText(dir / "autosave-20260101-130000-77.json", "{}");
    writeText(dir / "autosave-20260101-130000-77.running", std::to_string(::getpid()) + "\n");

    app::AutosaveFolder folder(dir.string());
    const auto offer = folder.lastCrashed();
    ASSERT_TRUE(offer.has_value());
    EXPECT_EQ(offer->path, crashed.string());
    const std::string own = folder.claim();
    EXPECT_NE(own, crashed.string());
    EXPECT_EQ(std::filesystem::path(own).parent_path(), dir);
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(own).replace_extension(".running")));
    // The launch's own file is not among the earlier ones; the running one is not "crashed".
    const auto files = folder.list();
    EXPECT_EQ(files.size(), 3u);
    for (const auto& f : files) {
        EXPECT_NE(f.path, own);
        EXPECT_EQ(f.crashed, f.path == crashed.string()) << f.path;
    }
    // Declined: the crash is not offered again, and its file stays.
    app::AutosaveFolder::dismiss(*offer);
    EXPECT_FALSE(folder.lastCrashed().has_value());
    EXPECT_TRUE(std::filesystem::exists(crashed));
    EXPECT_TRUE(std::filesystem::exists(dir / "autosave-20260101-120000-999999.crashed"));
    for (const auto& f : folder.list())
        if (f.path == crashed.string()) EXPECT_TRUE(f.crashed && f.seen);
    writeText(own, "{}");
    folder.release();
    EXPECT_TRUE(std::filesystem::exists(own));
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(own).replace_extension(".running")));
    std::filesystem::remove_all(dir);
}

TEST(AutosaveFolder, ACleanExitKeepsTheNewestCleanFilesAndEveryCrashedOne) {
    const auto dir = autosaveDir("prune");
    std::filesystem::create_directories(dir);
    const auto now = std::filesystem::file_time_type::clock::now();
    for (int i = 0; i < 14; ++i) {
        const auto p =
            dir / ("autosave-2026010" + std::to_string(i % 10) + "-" + std::to_string(100000 + i) +
                   "-" + std::to_string(1000 + i) + ".json");
        writeText(p, "{}");
        std::filesystem::last_write_time(p, now - std::chrono::hours(100 - i));
    }
    const auto crashed = dir / "autosave-20250101-000000-999998.json";
    writeText(crashed, "{}");
    std::filesystem::last_write_time(crashed, now - std::chrono::hours(1000));
    writeText(dir / "autosave-20250101-000000-999998.running", "999998\n");
    // A crash the user answered ("Not now"): old, but kept as well.
    const auto answered = dir / "autosave-20240101-000000-999997.json";
    writeText(answered, "{}");
    std::filesystem::last_write_time(answered, now - std::chrono::hours(2000));
    writeText(dir / "autosave-20240101-000000-999997.crashed", "999997\n");
    app::AutosaveFolder folder(dir.string());
    writeText(folder.claim(), "{}");
    folder.release();
    const auto files = folder.list();
    // The launch's own file and the 9 newest earlier clean ones, and both crashed ones.
    EXPECT_EQ(files.size(), app::AutosaveFolder::kKeepClean + 2);
    EXPECT_TRUE(std::filesystem::exists(crashed));
    EXPECT_TRUE(std::filesystem::exists(answered));
    EXPECT_FALSE(std::filesystem::exists(dir / "autosave-20260100-100000-1000.json"));
    EXPECT_TRUE(std::filesystem::exists(dir / "autosave-20260103-100013-1013.json"));
    std::filesystem::remove_all(dir);
}

TEST(AutosaveFolder, OffWithoutAFolder) {
    app::AutosaveFolder folder("");
    EXPECT_EQ(folder.claim(), "");
    EXPECT_TRUE(folder.list().empty());
    folder.release();
}

}  // namespace
}  // namespace sepal::test

namespace sepal::app {
namespace {

TEST(Workspace, MissingValuesAreCountedAndAnEmptyChannelIsNamed) {
    io::Table t = makeSyntheticTable(3000, 6);
    const size_t empty = t.channels.size();
    // A channel without any value, and gaps in the others: every 10th event misses one.
    io::Channel blank = t.channels.back();
    blank.name = "Blank";
    blank.marker = "";
    t.channels.push_back(blank);
    Matrix values(t.events(), t.channels.size());
    for (size_t i = 0; i < t.events(); ++i) {
        for (size_t c = 0; c < empty; ++c) values.row(i)[c] = t.values.row(i)[c];
        values.row(i)[empty] = NAN;
        if (i % 10 == 0) values.row(i)[i % empty] = i % 20 ? NAN : INFINITY;
    }
    t.values = std::move(values);
    Workspace ws("cpu");
    ws.data().openTables({t});
    settle(ws);
    const auto& st = ws.state();
    EXPECT_EQ(st.data.incompleteEvents, 300u);
    EXPECT_EQ(std::count(st.data.columns.begin(), st.data.columns.end(), "Blank"), 0);
    bool namedEmpty = false, countedGaps = false;
    for (const auto& e : ws.log()) {
        namedEmpty |= e.text.find("channel Blank has no finite value") != std::string::npos;
        countedGaps |= e.text.find("300 events have NA, NaN or infinity") != std::string::npos;
    }
    EXPECT_TRUE(namedEmpty);
    EXPECT_TRUE(countedGaps);
    // Trained and projected: every event has a finite place.
    const auto xy = directProjection(ws);
    EXPECT_TRUE(std::all_of(xy.begin(), xy.end(), [](float v) { return std::isfinite(v); }));
    for (float v : st.model.high) ASSERT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace sepal::app

namespace sepal::app {
namespace {

TEST(Workspace, MergingPopulationsAddsTheirCellsAndUndoSplitsThemAgain) {
    auto ws = openSynthetic(3000);
    settle(*ws);
    ws->populations().fromLandmarks(4);
    const Populations before = ws->state().populations;
    const auto sizes = ws->populations().sizes();
    ASSERT_EQ(sizes.size(), 4u);
    ws->populations().merge(0, 2);
    const auto& after = ws->state().populations;
    ASSERT_EQ(after.groups.size(), 3u);
    EXPECT_EQ(after.groups[1].name, before.groups[2].name);  // the target moved down one
    EXPECT_EQ(ws->populations().sizes()[1], sizes[0] + sizes[2]);
    EXPECT_EQ(ws->edits().undoStack().undoLabel(),
              "Merge " + before.groups[0].name + " into " + before.groups[2].name);
    ws->edits().undo();
    EXPECT_EQ(ws->state().populations, before);
    ws->populations().merge(1, 1);  // nothing to merge
    EXPECT_EQ(ws->state().populations, before);
}

// A click on a Heatmap row shows that population on the canvas: its cells in its colour, the
// others greyed; a population merged away leaves no greying behind.
// The Stats window's quality: once the picture settles, trustworthiness and k-NN preservation
// of an even sample of the cells, as core scores them; an edit scores the new picture. Colour by
// "Neighbours kept" shows each scored cell's share of its neighbours kept, the others faint.
TEST(Workspace, ThePicturesQualityIsScoredWhenItSettles) {
    auto ws = openSynthetic(8000);
    settle(*ws);
    const auto waitForScore = [&] {
        for (int i = 0; i < 20000 && (!ws->quality().valid || ws->quality().scoring); ++i) {
            ws->frame(8.0);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        ASSERT_TRUE(ws->quality().valid);
        ASSERT_FALSE(ws->quality().scoring);
    };
    waitForScore();
    const auto& st = ws->state();
    const size_t n = st.data.events(), m = std::min(QualityService::kSample, n);
    ASSERT_LT(m, n);
    Matrix high(m, st.data.points.cols), low(m, 2);
    for (size_t j = 0; j < m; ++j) {
        const size_t i = j * n / m;
        std::copy_n(st.data.points.row(i), high.cols, high.row(j));
        low.at(j, 0) = ws->positions()[2 * i], low.at(j, 1) = ws->positions()[2 * i + 1];
    }
    QualityParams params;
    params.sampleSize = 0;
    const QualityScores want = scoreEmbedding(high.data(), m, high.cols, low.data(), params);
    EXPECT_EQ(ws->quality().scores.points, m);
    EXPECT_DOUBLE_EQ(ws->quality().scores.trustworthiness, want.trustworthiness);
    EXPECT_DOUBLE_EQ(ws->quality().scores.knnPreservation, want.knnPreservation);
    EXPECT_GT(want.trustworthiness, 0.8);
    ASSERT_EQ(want.keptPerPoint.size(), m);
    ColourSettings colour = ws->state().colour;
    colour.mode = ColourMode::Neighbours;
    ws->edits().setColour(colour);
    ws->frame(8.0);
    const auto& rgba = ws->colours();
    ASSERT_EQ(rgba.size(), 4 * n);
    size_t faint = 0;
    for (size_t j = 0; j < m; ++j) {
        const size_t i = j * n / m;
        const auto c = colourMap("coolwarm", 1.0f - want.keptPerPoint[j]);
        EXPECT_EQ(rgba[4 * i], c[0]);
        EXPECT_EQ(rgba[4 * i + 3], 255);
    }
    for (size_t i = 0; i < n; ++i) faint += rgba[4 * i + 3] < 255;
    EXPECT_EQ(faint, n - m);
    EXPECT_NE(ws->scheduler().colourKey().title.find("neighbours kept (of 10"), std::string::npos);
    // Moving a landmark far away tears the picture: scored again, and worse.
    LandmarkModel model = st.model;
    for (size_t j = 0; j < model.count(); j += 4) model.low[2 * j] += 50.0f;  // a quarter
    ws->edits().replaceModel(model, "Move");
    settle(*ws);
    waitForScore();
    EXPECT_LT(ws->quality().scores.trustworthiness, want.trustworthiness);
}

TEST(Workspace, HighlightingAPopulationGreysTheOthers) {
    auto ws = openSynthetic(2000);
    settle(*ws);
    ws->populations().fromLandmarks(3);
    ColourSettings c = ws->state().colour;
    c.highlight = ws->state().populations.groups[1].name;
    ws->edits().setColour(c);
    settle(*ws);
    const auto& pops = ws->state().populations;
    const auto& rgba = ws->colours();
    ASSERT_EQ(rgba.size(), 4 * pops.membership.size());
    size_t shown = 0, greyed = 0;
    for (size_t i = 0; i < pops.membership.size(); ++i) {
        const std::array<uint8_t, 3> colour = {rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2]};
        if (pops.membership[i] == 2) {
            EXPECT_EQ(colour, pops.groups[1].colour);
            ++shown;
        } else {
            EXPECT_EQ(rgba[4 * i + 3], 60);  // greyed, faint
            ++greyed;
        }
    }
    EXPECT_GT(shown, 0u);
    EXPECT_GT(greyed, 0u);
    ws->populations().merge(1, 0);  // the highlighted one is gone: two remain, both in colour
    settle(*ws);
    for (size_t i = 0; i < ws->state().populations.membership.size(); ++i)
        EXPECT_NE(ws->colours()[4 * i + 3], 60) << i;
}

TEST(Workspace, SplittingByLassoMovesOnlyThatPopulationsCells) {
    auto ws = openSynthetic(3000);
    settle(*ws);
    ws->populations().fromLandmarks(4);
    const Populations before = ws->state().populations;
    const auto sizes = ws->populations().sizes();
    // A lasso round the whole picture, splitting population 1: all of its cells and no other.
    const auto& xy = ws->positions();
    float minX = xy[0], maxX = xy[0], minY = xy[1], maxY = xy[1];
    for (size_t i = 0; i < xy.size(); i += 2) {
        minX = std::min(minX, xy[i]), maxX = std::max(maxX, xy[i]);
        minY = std::min(minY, xy[i + 1]), maxY = std::max(maxY, xy[i + 1]);
    }
    const std::vector<float> all = {minX - 1, minY - 1, maxX + 1, minY - 1,
                                    maxX + 1, maxY + 1, minX - 1, maxY + 1};
    const std::string from = before.groups[1].name;
    EXPECT_EQ(ws->populations().brush(all, from + " b", from), sizes[1]);
    const auto after = ws->populations().sizes();
    ASSERT_EQ(after.size(), 5u);
    EXPECT_EQ(after[1], 0u);
    EXPECT_EQ(after[4], sizes[1]);
    EXPECT_EQ(after[0], sizes[0]);
    EXPECT_EQ(after[2], sizes[2]);
    EXPECT_EQ(ws->edits().undoStack().undoLabel(), "Split " + from);
    // Without a population to split, the same lasso takes every cell.
    ws->edits().undo();
    EXPECT_EQ(ws->state().populations, before);
    EXPECT_EQ(ws->populations().brush(all, "everything"), ws->state().data.events());
}

// The Training window's trainer list is the registry's, a trainer registered alone included,
// and the recipes' choices (grid or count, supervision, the command line) are their entries'.
TEST(TrainingChoices, TheWindowListsRegisteredTrainersAndRecipesReadTheirEntries) {
    EXPECT_EQ(availableTrainers(), trainerNames());
    {
        const test::ScopedPullTrainer registered;
        const auto names = availableTrainers();
        ASSERT_FALSE(names.empty());
        EXPECT_EQ(names.back(), test::kTestTrainer);
        TrainingSettings t;
        t.trainer = test::kTestTrainer;
        auto search = makeCpuNearestSearch();
        EXPECT_EQ(createTrainer(t, *search)->name(), test::kTestTrainer);
    }
    const auto after = availableTrainers();
    EXPECT_EQ(std::find(after.begin(), after.end(), test::kTestTrainer), after.end());

    TrainingSettings t;
    EXPECT_EQ(recipeCommandLine(t), "--landmarks kmeans:auto --seed 1 --train-sample 20000");
    EXPECT_FALSE(recipeUsesGrid(t));
    EXPECT_TRUE(supervisable(t));
    EXPECT_EQ(recipeSettings(t).params.k, 16);
    t.recipe = "som";
    EXPECT_EQ(recipeCommandLine(t), "--landmarks som:10x10 --seed 1 --train-sample 20000");
    EXPECT_TRUE(recipeUsesGrid(t));
    EXPECT_FALSE(supervisable(t));
    EXPECT_EQ(recipeSettings(t).params.k, 0);
    t.recipe = "kmeans-graph";
    EXPECT_EQ(recipeCommandLine(t),
              "--landmarks kmeans:auto --seed 1 --train-sample 20000 --layout graph");
    EXPECT_FALSE(recipeUsesGrid(t));
    EXPECT_FALSE(supervisable(t));
    t.recipe = "drawn";
    EXPECT_FALSE(recipeUsesGrid(t));
    EXPECT_FALSE(supervisable(t));
}

}  // namespace
}  // namespace sepal::app

namespace sepal::app {
namespace {

// The gate tree as the Gates window edits it: each edit one undo step, the embedded population
// following new gates and deletions, moves that change a population's cells, and a change of
// the embedded population re-training the picture unless turned off.
TEST(GateTreeEdits, AddRenameMoveDeleteAreUndoStepsAndEmbedTheNewGate) {
    Workspace ws("cpu");
    ws.data().openTables({demo::makeDemoTable(4000, 5)});
    settle(ws);
    ws.gates().setRetrainOnChange(false);
    const auto dimension = [](const char* channel, std::optional<double> lo,
                              std::optional<double> hi) {
        GateDimension d;
        d.channel = channel;
        d.scale = arcsinhScale(5.0);
        d.min = lo, d.max = hi;
        return d;
    };
    GateNode cells{GateNode::Kind::Rectangle, "", "cells"};
    cells.dimensions = {dimension("Ir191Di", 5.0, 5.5)};
    ASSERT_TRUE(ws.gates().add(cells));
    const State& st = ws.state();
    EXPECT_EQ(st.gating.gates.population, "cells");
    const size_t inCells = st.gating.kept;
    EXPECT_GT(inCells, 500u);
    EXPECT_LT(inCells, 3900u);
    GateNode live{GateNode::Kind::Rectangle, "", "live", "cells"};
    live.dimensions = {dimension("Pt195Di", std::nullopt, 3.0)};
    ASSERT_TRUE(ws.gates().add(live));
    EXPECT_EQ(st.gating.gates.path(), "cells/live");
    const size_t inLive = st.gating.kept;
    EXPECT_LT(inLive, inCells);
    EXPECT_EQ(st.gating.countOf("live")->parentEvents, inCells);
    // A second gate of the same name beside it is renamed.
    ASSERT_TRUE(ws.gates().add(live));
    EXPECT_EQ(st.gating.gates.tree.gates.back().name, "live 2");
    ASSERT_TRUE(ws.edits().undo());
    ASSERT_TRUE(ws.gates().rename("live", "Live"));
    EXPECT_EQ(st.gating.gates.path(), "cells/Live");
    EXPECT_EQ(ws.edits().undoStack().undoLabel(), "Rename Live");
    // Moved to the root, live no longer needs the cells gate: more cells.
    ASSERT_TRUE(ws.gates().reparent("live", ""));
    EXPECT_GT(st.gating.kept, inLive);
    ASSERT_TRUE(ws.edits().undo());
    EXPECT_EQ(st.gating.kept, inLive);
    // Under itself: refused, nothing changes.
    const std::string before = ws.edits().undoStack().undoLabel();
    EXPECT_FALSE(ws.gates().reparent("cells", "live"));
    EXPECT_EQ(ws.edits().undoStack().undoLabel(), before);
    // Deleting cells takes live with it; the picture embeds every cell again.
    ASSERT_TRUE(ws.gates().remove("cells"));
    EXPECT_TRUE(st.gating.gates.empty());
    EXPECT_EQ(st.gating.count(st.data.events()), st.data.events());
    ASSERT_TRUE(ws.edits().undo());
    EXPECT_EQ(st.gating.gates.path(), "cells/Live");
    EXPECT_EQ(st.gating.kept, inLive);
    // Embedding another population, with re-training on: the gate change and the training on
    // its cells are one undo step.
    ws.gates().setRetrainOnChange(true);
    const std::vector<float> landmarksBefore = st.model.high;
    ASSERT_TRUE(ws.gates().embed("cells"));
    settle(ws);
    EXPECT_EQ(st.gating.kept, inCells);
    EXPECT_NE(st.model.high, landmarksBefore) << "the picture did not re-train";
    EXPECT_EQ(ws.edits().undoStack().undoLabel(), "Embed cells");
    ASSERT_TRUE(ws.edits().undo());
    EXPECT_EQ(st.gating.gates.population, "live");
    EXPECT_EQ(st.model.high, landmarksBefore);
}

TEST(PopulationNames, GenericMarkersAreNoLineagesForTheDoubletRule) {
    // The app's generated data (Open > synthetic): clusters positive on most of its generic
    // markers ("Marker3") were named "Doublets (positive on 6 of 9 lineage markers)".
    auto owner = openSynthetic(20000);
    Workspace& ws = *owner;
    settle(ws);
    ws.populations().fromLandmarks(4);
    ASSERT_EQ(ws.state().populations.groups.size(), 4u);
    for (const auto& g : ws.state().populations.groups)
        EXPECT_EQ(g.name.find("Doublets"), std::string::npos) << g.name;
}

TEST(BiaxialAxes, EachAxisLabelsItsTicksInOneForm) {
    // A linear axis of scatter (FSC-A to 262,144): round steps, all in thousands, where a tick
    // on a power of ten read "1e5" between "50k" and "150k".
    GateScale linear;
    linear.kind = GateScale::Kind::Linear;
    std::vector<std::string> labels;
    for (const AxisTick& t : axisTicks(linear, 0.0f, 1.0f))
        if (!t.label.empty()) labels.push_back(t.label);
    EXPECT_EQ(labels, (std::vector<std::string>{"0", "50k", "100k", "150k", "200k", "250k"}));
    // Whatever the range: ticks on both sides of 10^4 or 10^6 share the unit.
    auto labelsOver = [&](double top) {
        GateScale s = linear;
        s.T = top;
        std::vector<std::string> out;
        for (const AxisTick& t : axisTicks(s, 0.0f, 1.0f))
            if (!t.label.empty()) out.push_back(t.label);
        return out;
    };
    EXPECT_EQ(labelsOver(12000),
              (std::vector<std::string>{"0", "2k", "4k", "6k", "8k", "10k", "12k"}));
    EXPECT_EQ(labelsOver(1e6),
              (std::vector<std::string>{"0", "0.2M", "0.4M", "0.6M", "0.8M", "1M"}));
    // A logarithmic-like one labels its decades as powers of ten.
    GateScale asinh;
    asinh.kind = GateScale::Kind::Asinh;
    bool decade = false;
    for (const AxisTick& t : axisTicks(asinh, 0.0f, 1.0f)) decade = decade || t.label == "1e4";
    EXPECT_TRUE(decade);
}

TEST(BiaxialGates, QuadrantLabelsSitInTheirOuterCornersAndPlotsTakeTheGatesScales) {
    // A quadrant gate cut near the plot's upper right corner (FlowJo's quadrants on a diamond):
    // labels in the middle of the quadrants' parts ran into one another along the top.
    GateDimension x, y;
    x.channel = "Ir191Di", y.channel = "Pt195Di";
    GateNode q{GateNode::Kind::Quadrant, "q", "", ""};
    q.dividers = {{"dx", x, {3.5}}, {"dy", y, {3.5}}};
    q.quadrants = {{"pp", "A+ B+", {4, 4}},
                   {"pn", "A+ B-", {4, 0}},
                   {"np", "A- B+", {0, 4}},
                   {"nn", "A- B-", {0, 0}}};
    Gating gating;
    gating.gates.tree.gates.push_back(q);
    BiaxialPlot plot;
    plot.axes = {x, y};
    plot.low = {0, 0}, plot.high = {4, 4};
    std::map<std::string, GateOutline> byId;
    for (GateOutline& o : gateOutlines(plot, gating)) byId[o.id] = o;
    ASSERT_EQ(byId.size(), 4u);
    const auto corner = [&](const std::string& id, std::array<float, 2> at,
                            std::array<int, 2> side) {
        SCOPED_TRACE(id);
        EXPECT_EQ(byId[id].anchor, at);
        EXPECT_EQ(byId[id].side, side);
    };
    corner("np", {0, 4}, {1, -1});   // upper left: from the corner rightwards and down
    corner("pp", {4, 4}, {-1, -1});  // upper right: leftwards and down
    corner("nn", {0, 0}, {1, 1});    // lower left: rightwards and up
    corner("pn", {4, 0}, {-1, 1});
    EXPECT_EQ(byId["pp"].room, (std::array<float, 4>{3.5f, 3.5f, 4, 4}));
    EXPECT_EQ(byId["pp"].name, "A+ B+");

    // A plot of these cells starts on the scales the gates were drawn on (a linear one here,
    // where the demo's mass cytometry channels default to arcsinh(x / 5)).
    Dataset data;
    data.tables.push_back(demo::makeDemoTable(200));
    EXPECT_EQ(startingAxisScale(data, gating, "", "Ir191Di").kind, GateScale::Kind::None);
    EXPECT_EQ(startingAxisScale(data, gating, "", "Y89Di").kind, GateScale::Kind::Asinh);
    EXPECT_EQ(startingAxisScale(data, gating, "pp", "Ir191Di").kind, GateScale::Kind::Asinh)
        << "the gates of another population say nothing of this one's plot";
    gating.gates.tree.gates.front().dividers[0].dimension.scale = arcsinhScale(150);
    EXPECT_EQ(scaleLabel(startingAxisScale(data, gating, "", "Ir191Di")), "arcsinh(x/150)");
}

// A FlowJo workspace's gates name a matrix's fluorochromes ("Comp-PE-A" of its matrix), whose
// detector is the data's channel: the plot of that channel shows them and starts on their
// scale. "FCS" compensation on data without a matrix is the values as they are, as the plot's.
TEST(BiaxialGates, GatesOnAMatrixsFluorochromesShowOnTheirDetectorsChannel) {
    GateTree tree;
    tree.matrices.push_back({"4c2d",
                             {"Comp-Nd142Di", "Comp-Sm149Di"},
                             {"Nd142Di", "Sm149Di"},
                             {1, 0.01, 0.02, 1},
                             false});
    GateDimension x, y;
    x.channel = "Comp-Nd142Di", y.channel = "Comp-Sm149Di";
    x.compensation = y.compensation = {CompensationRef::Kind::Matrix, "4c2d"};
    x.scale = y.scale = {GateScale::Kind::Logicle, 262144, 0.5, 4.5, 0};
    GateNode poly{GateNode::Kind::Polygon, "p", "wedge", "", {x, y}};
    poly.vertices = {0.1, 0.1, 0.6, 0.1, 0.6, 0.6};
    tree.gates.push_back(poly);
    EXPECT_EQ(tree.detectorOf(x), "Nd142Di");
    Gating gating;
    gating.gates.tree = tree;
    Dataset data;
    data.tables.push_back(demo::makeDemoTable(200));
    EXPECT_EQ(startingAxisScale(data, gating, "", "Nd142Di").kind, GateScale::Kind::Logicle);
    BiaxialPlot plot;
    plot.axes = {biaxialAxis(data, "Nd142Di", x.scale, false),
                 biaxialAxis(data, "Sm149Di", y.scale, false)};
    plot.low = {0, 0}, plot.high = {1, 1};
    const std::vector<GateOutline> outlines = gateOutlines(plot, gating);
    ASSERT_EQ(outlines.size(), 1u);
    EXPECT_EQ(outlines[0].name, "wedge");
    EXPECT_EQ(outlines[0].note, " (compensated otherwise)");  // its matrix, not the plot's none

    // The file's own matrix on data that has none: no note.
    for (GateDimension& d : gating.gates.tree.gates[0].dimensions) {
        d.channel = d.channel.substr(5);
        d.compensation = {CompensationRef::Kind::File, ""};
    }
    ASSERT_FALSE(data.tables[0].spillover.has_value());
    plot.fileMatrix = false;
    EXPECT_EQ(gateOutlines(plot, gating).at(0).note, "");
    plot.fileMatrix = true;
    EXPECT_EQ(gateOutlines(plot, gating).at(0).note, " (compensated otherwise)");
}

TEST(BiaxialAxes, ArcsinhAxesLabelZeroAndTheLargeDecadesAndLeaveNoCombAtZero) {
    // Flow data from just below zero to 2 x 10^4 on arcsinh(x/150): the decades 1 and 10 lie
    // in the scale's linear part beside zero. Placed from the low end, the labels read "-1" and
    // "100" only, and the marks of -9 ... 90 made a comb at zero.
    const GateScale s = arcsinhScale(150);
    const ScaleFunction f(s);
    const float low = float(f(-2.0)), high = float(f(2e4));
    std::vector<std::string> labels;
    std::vector<float> marks;
    for (const AxisTick& t : axisTicks(s, low, high)) {
        if (!t.label.empty()) labels.push_back(t.label);
        marks.push_back(t.at);
    }
    EXPECT_EQ(labels, (std::vector<std::string>{"0", "100", "1e3", "1e4"}));
    ASSERT_TRUE(std::is_sorted(marks.begin(), marks.end()));
    for (size_t i = 1; i < marks.size(); ++i)
        EXPECT_GE(marks[i] - marks[i - 1], 0.012f * (high - low)) << "marks " << i - 1 << ", " << i;
    // The multiples of the log decades are still marked: 2e3 ... 9e3.
    EXPECT_GE(std::count_if(marks.begin(), marks.end(),
                            [&](float m) { return m > f(1.5e3) && m < f(9.5e3); }),
              8);
}

// Beside an FCS export of a compensated file, the FlowJo workspace carries the exported file's own
// matrix inside its sample ("Acquisition-defined"), which FlowJo compensates the gates' "Comp-"
// parameters by; read back onto the exported file, the gate holds every exported cell.
TEST(Exports, AnFcsExportsWorkspaceCarriesTheFilesOwnMatrix) {
    io::Table demo = demo::makeDemoTable(2000, 3);
    io::Spillover spill;
    spill.channels = {"Pr141Di", "Nd142Di"};  // CD3 spills a tenth into CD4
    spill.matrix = Matrix(2, 2);
    spill.matrix.values = {1.0f, 0.1f, 0.0f, 1.0f};
    demo.spillover = spill;
    Workspace ws("cpu");
    ws.data().openTables({demo});
    settle(ws);
    ws.gates().setRetrainOnChange(false);
    GateNode cd3{GateNode::Kind::Rectangle, "", "CD3+"};
    GateDimension d;
    d.channel = "Pr141Di";
    d.scale = arcsinhScale(5.0);
    d.min = 2.0;
    d.compensation.kind = CompensationRef::Kind::File;
    cd3.dimensions = {d};
    ASSERT_TRUE(ws.gates().add(cd3));
    const size_t kept = ws.state().gating.kept;
    ASSERT_GT(kept, 100u);
    ASSERT_LT(kept, 1900u);
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sepal-fcs-workspace-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    ws.exports().events((dir / "cells.fcs").string());
    std::ifstream in(dir / "cells.wsp");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("name=\"Acquisition-defined\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"Comp-Pr141Di\""), std::string::npos);
    const io::Table exported = io::readFcs((dir / "cells.fcs").string());
    ASSERT_EQ(exported.events(), kept);
    ASSERT_TRUE(exported.spillover.has_value());
    const GateTree back = readFlowJoWorkspace(text, "cells.wsp").tree;
    const GateMembership membership = evaluateGates(back, exported);
    const std::vector<uint8_t>& in3 = membership.of(back.population("CD3+").id);
    EXPECT_EQ(size_t(std::count(in3.begin(), in3.end(), uint8_t(1))), kept);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sepal::app
