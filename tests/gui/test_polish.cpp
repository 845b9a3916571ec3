// "Polish the picture" in the app without a window: the polished picture is sepal-cli embed's
// polish of the same picture, stands until the model changes, and leaves EmbedSOM's picture
// drawn again wherever it was drawn (the host copy, or the device's memory on the GPU path).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <tuple>

#include "app/biaxial.h"
#include "app/polish_task.h"
#include "app/workspace.h"
#include "core/demo/demo_data.h"
#include "core/gate/gate.h"
#include "core/knn/nearest_search.h"
#include "core/pipeline/polish.h"
#include "core/pipeline/polish_device.h"
#include "workspace_support.h"

namespace sepal::app {
namespace {

// What sepal-cli embed --polish does to the same picture.
std::vector<float> polishedByCore(const Workspace& ws, const PolishChoice& choice) {
    std::vector<float> xy = directProjection(ws);
    PolishParams params;
    params.kernel = choice.kernel;
    params.epochs = choice.epochs;
    params.perplexity = choice.perplexity;
    params.seed = ws.state().training.seed;
    const auto search = makeCpuNearestSearch();
    polishPositions(ws.state().data.points, ws.state().model, xy.data(), params, *search);
    return xy;
}

bool logSays(const Workspace& ws, const std::string& words) {
    for (const auto& e : ws.log())
        if (e.text.find(words) != std::string::npos) return true;
    return false;
}

TEST(PolishInTheApp, ThePolishedPictureIsCoresPolishAndADragReturnsToEmbedSom) {
    auto owner = openSynthetic(3000);
    Workspace& ws = *owner;
    settle(ws);
    for (PolishKernel kernel : {PolishKernel::Umap, PolishKernel::StudentT}) {
        PolishChoice choice;
        choice.kernel = kernel;
        choice.epochs = kernel == PolishKernel::Umap ? 10 : 60;
        ASSERT_TRUE(ws.polish().start(choice));
        EXPECT_FALSE(ws.idle());  // the polish runs: a script's settle waits for it
        settle(ws);
        ASSERT_NE(ws.polish().shown(), nullptr);
        EXPECT_EQ(ws.polish().shown()->label, polishLabel(choice));
        EXPECT_EQ(ws.positions(), polishedByCore(ws, choice));
        EXPECT_NE(ws.positions(), directProjection(ws));
        EXPECT_EQ(ws.scheduler().embedSomPositions(), directProjection(ws));
    }
    // A drag changes the picture the polish started from: EmbedSOM's picture again.
    ws.edits().beginLandmarkDrag();
    const auto& m = ws.state().model;
    ws.edits().dragLandmarks({0}, {m.low[0] + 1.0f, m.low[1]});
    ws.edits().endLandmarkDrag("Move landmark 0");
    settle(ws);
    EXPECT_EQ(ws.polish().shown(), nullptr);
    EXPECT_EQ(ws.positions(), directProjection(ws));
    EXPECT_TRUE(logSays(ws, "EmbedSOM's picture again"));
    // Undo restores the model, not the polish (polished cells never followed it).
    ASSERT_TRUE(ws.edits().undo());
    settle(ws);
    EXPECT_EQ(ws.polish().shown(), nullptr);
    EXPECT_EQ(ws.positions(), directProjection(ws));
}

TEST(PolishInTheApp, BackToEmbedSomAndCancelLeaveEmbedSomsPicture) {
    auto owner = openSynthetic(3000);
    Workspace& ws = *owner;
    settle(ws);
    const std::vector<float> embedSom = directProjection(ws);
    PolishChoice choice;
    ASSERT_TRUE(ws.polish().start(choice));
    settle(ws);
    ASSERT_NE(ws.polish().shown(), nullptr);
    ws.polish().returnToEmbedSom();
    ws.frame(8.0);
    EXPECT_EQ(ws.polish().shown(), nullptr);
    EXPECT_EQ(ws.positions(), embedSom);
    // Cancelled at once: nothing is shown and the picture stays.
    choice.kernel = PolishKernel::StudentT;
    choice.epochs = 100000;
    ASSERT_TRUE(ws.polish().start(choice));
    ws.polish().cancel();
    EXPECT_FALSE(ws.polish().running());
    settle(ws);
    EXPECT_EQ(ws.polish().shown(), nullptr);
    EXPECT_EQ(ws.positions(), embedSom);
    EXPECT_TRUE(logSays(ws, "polish cancelled"));
    // Once the cancelled one has stopped, another starts (never two at once).
    choice.epochs = 5;
    bool started = false;
    for (int i = 0; i < 10000 && !started; ++i) {
        started = ws.polish().start(choice);
        if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(started);
    EXPECT_FALSE(ws.polish().start(choice));
    EXPECT_TRUE(logSays(ws, "a polish is running"));
    settle(ws);
    EXPECT_NE(ws.polish().shown(), nullptr);
}

TEST(PolishInTheApp, APolishOfAPictureThatChangedMeanwhileIsNotShown) {
    auto owner = openSynthetic(3000);
    Workspace& ws = *owner;
    settle(ws);
    PolishChoice choice;
    choice.epochs = 50;
    ASSERT_TRUE(ws.polish().start(choice));
    // The landmarks move while the worker polishes the old picture.
    LandmarkModel model = ws.state().model;
    model.low[0] += 2.0f;
    ws.edits().replaceModel(model, "Move");
    settle(ws);
    EXPECT_EQ(ws.polish().shown(), nullptr);
    EXPECT_EQ(ws.positions(), directProjection(ws));
    EXPECT_TRUE(logSays(ws, "the picture changed while it was polished"));
}

TEST(PolishInTheApp, RefusedWithoutDataOrASettledPicture) {
    Workspace empty("cpu");
    EXPECT_FALSE(empty.polish().start(PolishChoice{}));
    EXPECT_TRUE(logSays(empty, "no data is open"));
    auto owner = openSynthetic(3000);
    Workspace& ws = *owner;  // opened, not yet projected
    EXPECT_FALSE(ws.polish().start(PolishChoice{}));
    EXPECT_TRUE(logSays(ws, "not settled"));
    settle(ws);
    PolishChoice none;
    none.epochs = 0;
    EXPECT_FALSE(ws.polish().start(none));
    EXPECT_EQ(ws.polish().shown(), nullptr);
}

TEST(PolishInTheApp, OnlyTheCellsInsideTheGatesArePolishedAsSepalCliKeepsThem) {
    Workspace ws("cpu");
    std::vector<io::Table> tables;
    tables.push_back(demo::makeDemoTable(4000, 1));
    ws.data().openTables(std::move(tables));
    settle(ws);
    ASSERT_TRUE(ws.gates().set(liveGate(), "Gate live"));
    settle(ws);
    const size_t n = ws.state().data.events();
    const std::vector<size_t> inside = ws.state().gating.events(n);
    ASSERT_GT(inside.size(), 100u);
    ASSERT_LT(inside.size(), n);
    PolishChoice choice;
    choice.epochs = 10;
    ASSERT_TRUE(ws.polish().start(choice));
    settle(ws);
    ASSERT_NE(ws.polish().shown(), nullptr);
    // Core's polish of the gated cells alone, numbered as sepal-cli embed keeps them.
    const std::vector<float> embedSom = directProjection(ws);
    Matrix kept(inside.size(), ws.state().data.points.cols);
    std::vector<float> xy(2 * inside.size());
    for (size_t c = 0; c < inside.size(); ++c) {
        std::copy_n(ws.state().data.points.row(inside[c]), kept.cols, kept.row(c));
        xy[2 * c] = embedSom[2 * inside[c]], xy[2 * c + 1] = embedSom[2 * inside[c] + 1];
    }
    PolishParams params;
    params.epochs = choice.epochs;
    params.seed = ws.state().training.seed;
    polishPositions(kept, ws.state().model, xy.data(), params, *makeCpuNearestSearch());
    std::vector<float> want = embedSom;  // cells outside the gates stay where EmbedSOM put them
    for (size_t c = 0; c < inside.size(); ++c)
        want[2 * inside[c]] = xy[2 * c], want[2 * inside[c] + 1] = xy[2 * c + 1];
    EXPECT_EQ(ws.positions(), want);
    // New gates: EmbedSOM's picture again (the cells polished were the old gates').
    ASSERT_TRUE(ws.gates().set(GateSelection{}, "No gates"));
    settle(ws);
    EXPECT_EQ(ws.polish().shown(), nullptr);
}

TEST(PolishInTheApp, ALassoOnThePolishedPictureLeavesNoStrokeForNewFiles) {
    auto owner = openSynthetic(3000);
    Workspace& ws = *owner;
    settle(ws);
    ASSERT_TRUE(ws.polish().start(PolishChoice{}));
    settle(ws);
    ASSERT_NE(ws.polish().shown(), nullptr);
    // A box around the polished picture's middle: it takes cells, in polished coordinates.
    const auto& xy = ws.positions();
    float cx = 0, cy = 0;
    for (size_t i = 0; i < xy.size() / 2; ++i) cx += xy[2 * i], cy += xy[2 * i + 1];
    cx /= float(xy.size() / 2), cy /= float(xy.size() / 2);
    const float r = 2.0f;
    const std::vector<float> box = {cx - r, cy - r, cx + r, cy - r, cx + r, cy + r, cx - r, cy + r};
    EXPECT_GT(ws.populations().brush(box, "middle"), 0u);
    // Strokes lie in EmbedSOM's picture, where apply places new files: none from this one.
    EXPECT_TRUE(ws.state().populations.regions.empty());
    ws.polish().returnToEmbedSom();
    settle(ws);
    EXPECT_GT(ws.populations().brush(box, "other"), 0u);
    EXPECT_TRUE(ws.state().populations.regions.empty());  // the populations keep no strokes now
    // On EmbedSOM's picture from the start, the same lasso is kept as a stroke.
    auto fresh = openSynthetic(3000);
    settle(*fresh);
    EXPECT_GT(fresh->populations().brush(box, "middle"), 0u);
    EXPECT_FALSE(fresh->state().populations.regions.empty());
}

// A device that fails as a GPU out of memory does.
class FailingPolishDevice : public PolishDevice {
  public:
    std::string name() const override { return "failing"; }
    size_t mostNeighbours() const override { return 32; }
    bool fits(size_t, size_t, size_t, size_t) const override { return true; }
    void neighbours(const Matrix&, const CellLists&, const std::vector<uint32_t>&, size_t, size_t,
                    std::vector<uint32_t>&, std::vector<float>&) override {
        throw std::runtime_error("out of memory in this test");
    }
    bool polish(const Matrix&, const CellLists&, const std::vector<uint32_t>&, size_t, size_t,
                const std::vector<uint32_t>&, std::vector<float>&, PolishStep,
                const std::vector<float>&, const std::function<bool(double)>&,
                PolishTimes*) override {
        throw std::runtime_error("out of memory in this test");
    }
};

TEST(PolishInTheApp, AFailingDeviceLeavesThePolishToTheCpu) {
    auto owner = openSynthetic(2000);
    Workspace& ws = *owner;
    settle(ws);
    FailingPolishDevice failing;
    PolishParams params;
    params.epochs = 10;
    params.seed = ws.state().training.seed;
    params.device = &failing;
    PolishTask task(ws.scheduler().points(), ws.state().model, directProjection(ws), params);
    while (!task.done()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(task.error().empty()) << task.error();
    EXPECT_NE(task.note().find("out of memory in this test"), std::string::npos) << task.note();
    PolishChoice choice;
    choice.epochs = 10;
    EXPECT_EQ(task.positions(), polishedByCore(ws, choice));
}

TEST(PolishInTheApp, OnTheDevicePathThePolishIsDrawnFromTheHostAndEmbedSomsPictureReturns) {
    HostResident device;
    HostPositions drawn;
    Workspace ws("cpu");
    ws.projectOnDevice(&device, &drawn);
    std::vector<io::Table> tables;
    tables.push_back(makeSyntheticTable(3000));
    ws.data().openTables(std::move(tables));
    settle(ws);
    ASSERT_TRUE(ws.projection().drawsOnDevice());
    ASSERT_EQ(drawn.xy, directProjection(ws));
    ASSERT_TRUE(ws.polish().start(PolishChoice{}));
    settle(ws);
    ASSERT_NE(ws.polish().shown(), nullptr);
    // The window draws the host's polished positions, uploading them into its buffer.
    EXPECT_FALSE(ws.projection().drawsOnDevice());
    EXPECT_EQ(ws.projection().projectorPositions(), nullptr);
    drawn.xy = ws.positions();
    ws.polish().returnToEmbedSom();
    settle(ws);
    EXPECT_TRUE(ws.projection().drawsOnDevice());
    EXPECT_EQ(drawn.xy, directProjection(ws));
    EXPECT_EQ(ws.positions(), directProjection(ws));
}

}  // namespace
}  // namespace sepal::app
