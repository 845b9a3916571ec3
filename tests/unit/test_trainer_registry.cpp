#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/train/init.h"
#include "core/train/trainer_factory.h"
#include "core/train/trainer_registry.h"
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
    InitParams init;
    init.seed = 3;
    if (info.init == TrainerInit::Grid) {
        init.method = InitMethod::Grid;
        init.rows = init.cols = 6;
    } else {
        init.method = InitMethod::Sample;
        init.g = 36;
    }
    LandmarkModel model;
    initModel(model, data, init);
    return model;
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
}

TEST(TrainerRegistry, DefaultsInteractiveAndShownParametersFitTheFactory) {
    auto search = makeCpuNearestSearch();
    for (const auto& t : trainerRegistry()) {
        SCOPED_TRACE(t.name);
        ASSERT_TRUE(t.defaults.is_object());
        EXPECT_TRUE(t.defaults.contains("seed"));
        EXPECT_EQ(makeTrainer(t.name, t.defaults, *search)->name(), t.name);
        EXPECT_EQ(makeTrainer(t.name, t.interactive, *search)->name(), t.name);
        for (const auto& [key, value] : t.interactive.items())
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

}  // namespace sepal
