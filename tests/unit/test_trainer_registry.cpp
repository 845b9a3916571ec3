#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/train/init.h"
#include "core/train/trainer_factory.h"
#include "core/train/trainer_names.h"
#include "core/train/trainer_registry.h"
#include "core/train/trainer_run.h"
#include "test_only_trainer.h"
#include "test_paths.h"
#include "train_fixtures.h"

namespace sepal {
namespace {

// The message of the InputError that `f` throws ("" when it throws none).
template <typename F>
std::string inputErrorOf(F f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

// 36 landmarks started as the registry says: a 6 x 6 grid or 36 sampled points.
LandmarkModel startingModel(const TrainerInfo& info, const TrainingData& data) {
    LandmarkModel model;
    initModel(model, data, startOf(info, 6, 6, 36, 3));
    return model;
}

// 600 points of three clusters in 4 dimensions, as a matrix.
Matrix blobMatrix() {
    const auto x = test::blobs(600, 4, 3, 11);
    Matrix m(600, 4);
    std::copy(x.begin(), x.end(), m.values.begin());
    return m;
}

}  // namespace

TEST(TrainerRegistry, NamesAreUniqueAndDataSpaceTrainersComeFirst) {
    const auto& registry = trainerRegistry();
    ASSERT_GE(registry.size(), 7u);
    std::set<std::string> names;
    bool layoutSeen = false;
    for (const auto& t : registry) {
        EXPECT_TRUE(names.insert(t.name).second) << "repeated name " << t.name;
        EXPECT_FALSE(t.name.empty());
        EXPECT_EQ(t.name.find_first_of(":, "), std::string::npos) << t.name;
        EXPECT_FALSE(t.description.empty()) << t.name;
        EXPECT_EQ(findTrainer(t.name), &t);
        if (t.moves == TrainerSpace::Layout) layoutSeen = true;
        EXPECT_FALSE(layoutSeen && t.moves == TrainerSpace::Data) << t.name << " after a layout";
    }
    EXPECT_EQ(findTrainer("nope"), nullptr);
    EXPECT_EQ(trainerNames().size(), registry.size());
    EXPECT_EQ(trainerNames(TrainerSpace::Data).size() + trainerNames(TrainerSpace::Layout).size(),
              registry.size());
    EXPECT_EQ(trainerNames(TrainerSpace::Layout),
              (std::vector<std::string>{"graph", "tsne", "umap"}));
    EXPECT_EQ(trainerNames(TrainerRole::Layout), trainerNames(TrainerSpace::Layout));
    EXPECT_EQ(trainerNames(TrainerRole::Landmarks), trainerNames(TrainerSpace::Data));
    EXPECT_TRUE(trainerNames(TrainerRole::Both).empty());
}

TEST(TrainerRegistry, DefaultsInteractiveAndShownParametersFitTheFactory) {
    auto search = makeCpuNearestSearch();
    for (const auto& t : trainerRegistry()) {
        SCOPED_TRACE(t.name);
        ASSERT_TRUE(t.defaults.is_object());
        EXPECT_TRUE(t.defaults.contains("seed"));
        EXPECT_EQ(makeTrainer(t.name, t.defaults, *search)->name(), t.name);
        EXPECT_EQ(makeTrainer(t.name, t.interactive, *search)->name(), t.name);
        EXPECT_EQ(makeTrainer(t.name, t.batch, *search)->name(), t.name);
        for (const auto& [key, value] : t.interactive.items())
            EXPECT_TRUE(t.defaults.contains(key)) << key;
        for (const auto& [key, value] : t.batch.items())
            EXPECT_TRUE(t.defaults.contains(key)) << key;
        EXPECT_FALSE(t.shown.empty());
        for (const auto& p : t.shown) {
            SCOPED_TRACE(p.key);
            EXPECT_TRUE(t.defaults.contains(p.key));
            EXPECT_FALSE(p.label.empty());
            EXPECT_LT(p.min, p.max);
            EXPECT_GE(p.start, p.min);
            EXPECT_LE(p.start, p.max);
            if (p.logarithmic) EXPECT_GT(p.min, 0.0);
            if (p.kind == ParamKind::Int) {
                EXPECT_TRUE(t.defaults.at(p.key).is_number_integer());
                EXPECT_EQ(p.start, std::round(p.start));
                EXPECT_EQ(p.min, std::round(p.min));
            }
            // The slider's ends are values the trainer takes.
            const nlohmann::json low = {{p.key, p.min}}, high = {{p.key, p.max}};
            const auto asKind = [&](const nlohmann::json& j) {
                if (p.kind == ParamKind::Float) return j;
                return nlohmann::json{{p.key, std::llround(j.at(p.key).get<double>())}};
            };
            EXPECT_NO_THROW(makeTrainer(t.name, asKind(low), *search));
            EXPECT_NO_THROW(makeTrainer(t.name, asKind(high), *search));
        }
    }
}

TEST(TrainerRegistry, EveryTrainerRunsWithItsDefaultsAndMovesOnlyItsSpace) {
    const auto x = test::blobs(600, 4, 3, 11);
    const TrainingData data = test::view(x, 4);
    auto search = makeCpuNearestSearch();
    for (const auto& t : trainerRegistry()) {
        SCOPED_TRACE(t.name);
        LandmarkModel model = startingModel(t, data);
        const LandmarkModel before = model;
        auto trainer = makeTrainer(t.name, t.defaults, *search);
        for (int s = 0; s < 3; ++s) trainer->step(model, data);
        ASSERT_EQ(model.count(), before.count());
        for (float v : model.high) ASSERT_TRUE(std::isfinite(v));
        for (float v : model.low) ASSERT_TRUE(std::isfinite(v));
        if (t.moves == TrainerSpace::Data) {
            EXPECT_EQ(model.low, before.low) << "a data-space trainer moved the 2D layout";
            EXPECT_NE(model.high, before.high) << "nothing moved in data space";
        } else {
            EXPECT_EQ(model.high, before.high) << "a layout moved data-space landmarks";
            EXPECT_NE(model.low, before.low) << "the layout did not move";
        }
    }
}

TEST(TrainerRegistry, UnknownNamesListTheRegistry) {
    auto search = makeCpuNearestSearch();
    const std::string message = inputErrorOf([&] { makeTrainer("nope", nullptr, *search); });
    EXPECT_NE(message.find("unknown trainer \"nope\""), std::string::npos) << message;
    for (const auto& name : trainerNames())
        EXPECT_NE(message.find(name), std::string::npos) << message;
    EXPECT_NE(inputErrorOf([&] {
                  makeTrainer("som", {{"topology", "hex"}}, *search);
              }).find("use grid or free"),
              std::string::npos);
    EXPECT_NE(inputErrorOf([&] {
                  makeTrainer("tsne", {{"perplex", 5}}, *search);
              }).find("(it knows: exaggeration, exaggerationIters"),
              std::string::npos);
    EXPECT_THROW(makeTrainer("umap", nlohmann::json::array(), *search), InputError);
}

TEST(TrainerRegistry, LandmarksTakeEveryDataSpaceTrainer) {
    for (const auto& t : trainerRegistry()) {
        SCOPED_TRACE(t.name);
        if (t.moves == TrainerSpace::Layout) {
            EXPECT_THROW(parseLandmarkSpec(t.name + ":64"), InputError);
            EXPECT_THROW(parseLandmarkSpec(t.name + ":8x8"), InputError);
            continue;
        }
        const bool grid = t.init == TrainerInit::Grid;
        const LandmarkSpec spec = parseLandmarkSpec(t.name + (grid ? ":4x5" : ":20"));
        EXPECT_EQ(spec.kind, t.name);
        EXPECT_EQ(spec.count, 20u);
        EXPECT_EQ(spec.rows, grid ? 4u : 0u);
        EXPECT_THROW(parseLandmarkSpec(t.name + (grid ? ":20" : ":4x5")), InputError);
        EXPECT_NE(landmarkForms().find(t.name + (grid ? ":ROWSxCOLS" : ":COUNT")),
                  std::string::npos);
    }
    EXPECT_EQ(
        inputErrorOf([] { parseLandmarkSpec("nope:5"); }),
        "--landmarks nope:5: use " + landmarkForms() + " (for example som:16x16 or kmeans:512)");
    EXPECT_THROW(parseLandmarkSpec("som:99999999999999999999x2"), InputError);
}

TEST(TrainerRegistry, LayoutTakesTheLayoutTrainersAndGrid) {
    for (const auto& name : trainerNames(TrainerSpace::Layout)) EXPECT_EQ(checkLayout(name), name);
    for (const std::string keep : {"", "grid", "none"}) EXPECT_EQ(checkLayout(keep), keep);
    for (const auto& name : trainerNames(TrainerSpace::Data))
        EXPECT_THROW(checkLayout(name), InputError) << name;
    EXPECT_EQ(layoutForms(), "graph, tsne, umap or grid");
    EXPECT_EQ(inputErrorOf([] { checkLayout("nope"); }),
              "--layout nope: use graph, tsne, umap or grid");
}

TEST(TrainerRegistry, ArchitectureDocsListEveryTrainer) {
    const auto path = test::sourceDir() / "docs" / "ARCHITECTURE.md";
    std::ifstream in(path);
    if (!in) GTEST_SKIP() << "skipped: " << path << " is absent";
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& t : trainerRegistry()) {
        const std::string row = "| `" + t.name + "` | `" +
                                (t.moves == TrainerSpace::Data ? "high" : "low") + "` | " +
                                (t.init == TrainerInit::Grid ? "grid" : "sample") + " |";
        EXPECT_NE(text.str().find(row), std::string::npos) << "no row starting " << row;
    }
}

// What embed and the app's recipes read from the entries instead of comparing names.
TEST(TrainerRegistry, EntriesSayWhatFollowsThemAndWhichEmbedSomParametersSuit) {
    const TrainerInfo* lloyd = findTrainer(trainer_name::kKmeans);
    const TrainerInfo* online = findTrainer(trainer_name::kOnlineKmeans);
    const TrainerInfo* som = findTrainer(trainer_name::kSom);
    ASSERT_TRUE(lloyd && online && som);
    EXPECT_EQ(makeTrainer(trainer_name::kKmeans, nullptr, *makeCpuNearestSearch())->name(),
              "kmeans");
    EXPECT_EQ(lloyd->init, TrainerInit::Sample);
    EXPECT_EQ(lloyd->followedBy, "tsne");
    EXPECT_EQ(lloyd->batch, (nlohmann::json{{"epochs", 10}}));
    EXPECT_EQ(defaultEmbedParams(parseLandmarkSpec("kmeans:64")).k, 16);
    EXPECT_EQ(defaultEmbedParams(parseLandmarkSpec("kmeans:64")).smooth, -2.0f);
    EXPECT_EQ(defaultEmbedParams(parseLandmarkSpec("kmeans:64")).adjust, 3.0f);
    EXPECT_EQ(defaultEmbedParams(parseLandmarkSpec("som:8x8")).k, 0);
    EXPECT_EQ(som->followedBy, "grid");
    EXPECT_EQ(layoutAfter(parseLandmarkSpec("som:8x8"), ""), "grid");
    EXPECT_EQ(layoutAfter(parseLandmarkSpec("kmeans:64"), ""), "tsne");
    EXPECT_EQ(layoutAfter(parseLandmarkSpec("kmeans:64"), "umap"), "umap");
    EXPECT_EQ(
        findTrainer("tsne")->batch,
        (nlohmann::json{{"perplexity", 10.0}, {"iterations", 400}, {"exaggerationIters", 100}}));
    EXPECT_EQ(supervisableLayouts(), "tsne or umap");
    EXPECT_TRUE(findTrainer("graph")->drawsGraph);
    EXPECT_EQ(layoutTrainer("grid"), nullptr);
    EXPECT_EQ(layoutTrainer("none"), nullptr);
    EXPECT_EQ(layoutTrainer("tsne"), findTrainer("tsne"));
    EXPECT_EQ(landmarkSpecText(parseLandmarkSpec("kmeans:64")), "kmeans:64");
    EXPECT_EQ(landmarkSpecText(landmarkSpec("som", 3, 4, 99)), "som:3x4");
    EXPECT_EQ(landmarkSpec("kmeans", 3, 4, 99).count, 99u);
    EXPECT_THROW(landmarkSpec("tsne", 0, 0, 64), InputError);
    EXPECT_THROW(landmarkSpec("som", 1000, 1000, 0), InputError);
    EXPECT_EQ(perLandmarkTrainer([](const TrainerInfo& t) { return t.followedBy; }),
              "grid for som, batchsom and plsom, tsne for kmeans and online-kmeans");
    for (const auto& t : trainerRegistry()) {
        SCOPED_TRACE(t.name);
        if (placesLandmarks(t)) EXPECT_TRUE(t.followedBy == "grid" || layoutTrainer(t.followedBy));
        EXPECT_EQ(placesLandmarks(t), t.moves == TrainerSpace::Data);
        EXPECT_EQ(laysOutLandmarks(t), t.moves == TrainerSpace::Layout);
    }
}

// Every trainer that places landmarks runs to its end under embed with its batch parameters,
// with its own default layout after it.
TEST(TrainerRegistry, EveryLandmarkTrainerEndsInEmbedWithItsDefaultLayout) {
    const Matrix x = blobMatrix();
    auto search = makeCpuNearestSearch();
    for (const auto& t : trainerRegistry()) {
        if (!placesLandmarks(t)) continue;
        SCOPED_TRACE(t.name);
        EmbedSettings s;
        s.landmarks = parseLandmarkSpec(t.name + (t.init == TrainerInit::Grid ? ":5x5" : ":25"));
        s.params = defaultEmbedParams(s.landmarks);
        s.trainSample = 300;
        s.layoutParams = t.followedBy == "tsne"
                             ? nlohmann::json{{"iterations", 50}, {"exaggerationIters", 20}}
                         : t.followedBy == "umap" ? nlohmann::json{{"epochs", 30}}
                                                  : nlohmann::json::object();
        std::vector<std::string> stages;
        const LandmarkModel m =
            trainLandmarks(x, s, *search, [&](const std::string& stage, double) {
                if (stages.empty() || stages.back() != stage) stages.push_back(stage);
            });
        EXPECT_EQ(m.count(), 25u);
        std::vector<std::string> expected = {"train"};
        if (t.followedBy != "grid") expected.push_back("layout");
        EXPECT_EQ(stages, expected);
    }
}

// A trainer added through the registry alone: sepal-cli embed's --landmarks parses it, lists
// it and trains it with its batch run, its default layout and its EmbedSOM parameters.
TEST(TrainerRegistry, ATrainerRegisteredAloneIsOfferedAndTrainedByEmbed) {
    ASSERT_EQ(findTrainer(test::kTestTrainer), nullptr);
    {
        const test::ScopedPullTrainer registered;
        const TrainerInfo* t = findTrainer(test::kTestTrainer);
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(&trainerRegistry().back(), t);
        EXPECT_NE(landmarkForms().find("test-pull:COUNT"), std::string::npos);
        const std::vector<std::string> names = trainerNames();
        EXPECT_NE(std::find(names.begin(), names.end(), "test-pull"), names.end());
        const LandmarkSpec spec = parseLandmarkSpec("test-pull:20");
        EXPECT_EQ(spec.kind, "test-pull");
        EXPECT_EQ(spec.count, 20u);
        EXPECT_EQ(defaultEmbedParams(spec).k, 6);
        EXPECT_EQ(defaultEmbedParams(spec).adjust, 2.0f);
        auto search = makeCpuNearestSearch();
        EXPECT_EQ(makeTrainer("test-pull", {{"rate", 0.25}}, *search)->name(), "test-pull");

        const Matrix x = blobMatrix();
        EmbedSettings s;
        s.landmarks = spec;
        s.params = defaultEmbedParams(spec);
        s.trainSample = 300;
        s.layoutParams = {{"epochs", 30}};
        std::vector<std::string> stages;
        const auto track = [&](const std::string& stage, double) {
            if (stages.empty() || stages.back() != stage) stages.push_back(stage);
        };
        const LandmarkModel laid = trainLandmarks(x, s, *search, track);
        EXPECT_EQ(stages, (std::vector<std::string>{"train", "layout"}));  // umap followed it
        EXPECT_EQ(laid.count(), 20u);
        s.layout = "grid";
        const LandmarkModel kept = trainLandmarks(x, s, *search);
        EXPECT_EQ(kept.high, laid.high);
        EXPECT_NE(kept.low, laid.low);
        s.landmarkParams = {{"steps", 1}};
        EXPECT_NE(trainLandmarks(x, s, *search).high, kept.high) << "the batch run took 5 steps";
        // Supervision needs a layout whose entry can take it: umap can, the grid cannot.
        s.supervision.assign(x.rows, 0);
        EXPECT_THROW(trainLandmarks(x, s, *search), InputError);
        s.layout.clear();
        EXPECT_NO_THROW(trainLandmarks(x, s, *search));
    }
    EXPECT_EQ(findTrainer(test::kTestTrainer), nullptr);
    EXPECT_THROW(parseLandmarkSpec("test-pull:20"), InputError);
}

TEST(TrainerRegistry, RegistrationRefusesEntriesThatCannotWork) {
    const auto refused = [](const std::function<void(TrainerInfo&)>& spoil) {
        TrainerInfo t = test::pullTrainerEntry();
        spoil(t);
        EXPECT_THROW(registerTrainer(t), std::invalid_argument) << t.name;
        EXPECT_EQ(findTrainer(test::kTestTrainer), nullptr);
    };
    refused([](TrainerInfo& t) { t.name = "som"; });
    refused([](TrainerInfo& t) { t.name = "test pull"; });
    refused([](TrainerInfo& t) { t.name = "test:pull"; });
    refused([](TrainerInfo& t) { t.make = nullptr; });
    refused([](TrainerInfo& t) { t.defaults.erase("seed"); });
    refused([](TrainerInfo& t) { t.followedBy = "som"; });
    refused([](TrainerInfo& t) { t.followedBy = "nope"; });
    refused([](TrainerInfo& t) { t.role = TrainerRole::Layout; });
    EXPECT_FALSE(unregisterTrainer("som"));
    EXPECT_NE(findTrainer("som"), nullptr);
    const size_t before = trainerRegistry().size();
    {
        const test::ScopedPullTrainer registered;
        EXPECT_THROW(registerTrainer(test::pullTrainerEntry()), std::invalid_argument);
        EXPECT_EQ(trainerRegistry().size(), before + 1);
    }
    EXPECT_EQ(trainerRegistry().size(), before);
}

}  // namespace sepal

// kmeans:auto scales the landmarks with the cells: a small file is not covered by landmarks
// of a few cells each, a large one gets 512.
TEST(TrainerRegistry, AutomaticLandmarkCountFollowsTheCells) {
    const sepal::LandmarkSpec automatic = sepal::parseLandmarkSpec("kmeans:auto");
    EXPECT_EQ(automatic.count, 0u);
    EXPECT_EQ(sepal::landmarkSpecText(automatic), "kmeans:auto");
    EXPECT_EQ(sepal::landmarksFor(automatic, 2000).count, 100u);
    EXPECT_EQ(sepal::landmarksFor(automatic, 1000).count, 64u);
    EXPECT_EQ(sepal::landmarksFor(automatic, 40).count, 40u);
    EXPECT_EQ(sepal::landmarksFor(automatic, 3).count, 16u);
    EXPECT_EQ(sepal::landmarksFor(automatic, 10'240).count, 512u);
    EXPECT_EQ(sepal::landmarksFor(automatic, 5'000'000).count, 512u);
    // A count given is kept; grids have no automatic size.
    EXPECT_EQ(sepal::landmarksFor(sepal::parseLandmarkSpec("kmeans:300"), 2000).count, 300u);
    EXPECT_THROW(sepal::parseLandmarkSpec("som:auto"), sepal::InputError);
    EXPECT_EQ(sepal::EmbedSettings().landmarks.count, 0u);
}
