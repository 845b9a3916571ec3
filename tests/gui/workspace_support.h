#pragma once
// Workspaces for the app's tests: a synthetic data set opened on the CPU backend, the positions
// the CPU projector gives its cells under the current model (what every projection path,
// cached, swept or on a device, must reproduce), and a device that is host memory.

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "app/biaxial.h"
#include "app/dataset.h"
#include "app/document.h"
#include "app/gpu_projection.h"
#include "app/synthetic.h"
#include "app/workspace.h"
#include "core/common/error.h"
#include "core/demo/demo_data.h"
#include "core/embedsom/embedsom.h"
#include "core/gate/gate.h"
#include "core/io/fcs_writer.h"

namespace sepal::app {

/// A ResidentProjector whose device is host memory: the CPU projector writes the positions,
/// and the device's free memory is what the test says.
class HostResident : public ResidentProjector {
  public:
    size_t available = size_t(1) << 40;  ///< what availableBytes() answers
    int uploads = 0;                     ///< setPoints calls
    std::vector<float> own;              ///< the projector's own positions
    /// A slow device: each projection takes at least this long (a whole one, or a range).
    double projectionMs = 0;
    /// The ranges projectRangeToDevice was asked for (begin, count).
    std::vector<std::pair<size_t, size_t>> ranges;

    void setPoints(const float* host, size_t n, size_t d) override {
        m_points = host, m_n = n, m_d = d;
        ++uploads;
    }
    ProjectionReport projectToDevice(const LandmarkModel& model, const EmbedParams& params,
                                     float* out) override {
        pause();
        m_last = m_n;
        return m_cpu->project(m_points, m_n, m_d, model, params, out);
    }
    ProjectionReport projectRangeToDevice(const LandmarkModel& model, const EmbedParams& params,
                                          size_t begin, size_t count, float* out) override {
        if (begin > m_n || count > m_n - begin) throw InputError("range past the cells");
        ranges.emplace_back(begin, count);
        pause();
        m_last = count;
        return m_cpu->project(m_points + begin * m_d, count, m_d, model, params, out + 2 * begin);
    }
    ProjectionReport projectToHost(const LandmarkModel& model, const EmbedParams& params,
                                   float* out) override {
        return projectToDevice(model, params, out);
    }
    float* ownPositions() override {
        own.resize(2 * m_n);
        return own.data();
    }
    std::string lastKernel() const override { return "host"; }
    void enableTiming(bool) override {}
    double lastDeviceMs() const override { return 0; }
    void keepNeighbourLists(bool) override {}
    std::pair<size_t, std::string> cacheState() const override { return {0, ""}; }
    size_t lastProjected() const override { return m_last; }
    size_t residentBytes(size_t n, size_t d) const override { return n * (d + 3) * 4; }
    size_t availableBytes() const override { return available; }

  private:
    void pause() const {
        if (projectionMs > 0)
            std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(projectionMs));
    }

    std::unique_ptr<Projector> m_cpu = makeCpuProjector();
    const float* m_points = nullptr;
    size_t m_n = 0, m_d = 0, m_last = 0;
};

/// The drawn positions in host memory.
class HostPositions : public DevicePositions {
  public:
    std::vector<float> xy;  ///< what was projected or uploaded
    bool mappable = true;   ///< false: no interop, positions arrive through upload()
    void resize(size_t) override {}
    void attach(size_t n) override { xy.assign(2 * n, 0.0f); }
    float* map() override {
        if (!mappable) throw std::runtime_error("no interop in this test");
        return xy.data();
    }
    void unmap() override {}
    void upload(const float* p, size_t n) override { xy.assign(p, p + 2 * n); }
    std::string memoryLine() const override { return "host"; }
};

/// Runs frames until nothing is pending (bounded), as the window's loop does. Bounded by time,
/// not frames: a recipe or a polish runs on a worker thread, slower on a busy machine.
inline void settle(Workspace& ws) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    for (int i = 0; (i < 2 || !ws.idle()) && std::chrono::steady_clock::now() < end; ++i) {
        ws.frame(8.0);
        if (!ws.idle()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(ws.idle());
}

/// A document holding n synthetic events, opened as the workspace opens a file.
inline void openInto(Document& doc, size_t n) {
    Dataset data;
    data.tables.push_back(makeSyntheticTable(n));
    TransformPipeline pipeline = defaultPipeline(data);
    rebuildPoints(data, pipeline);
    doc.replaceData(std::move(data), std::move(pipeline));
}

/// A new folder "sepal-NAME-PID" in the temporary directory (the caller removes it).
inline std::filesystem::path testFolder(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("sepal-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

/// `count` demo samples of `events` cells each, seeds 1, 2, ..., named s1.fcs, s2.fcs, ...
inline std::vector<io::Table> demoSamples(int count, size_t events) {
    std::vector<io::Table> tables;
    for (int s = 1; s <= count; ++s) {
        tables.push_back(demo::makeDemoTable(events, uint32_t(s)));
        tables.back().source = "s" + std::to_string(s) + ".fcs";
    }
    return tables;
}

/// `count` demo samples (demoSamples) opened in `ws` and settled, then `metadata` (a CSV of
/// file,condition... naming s1.fcs, s2.fcs, ...) written as meta.csv into `dir` and opened.
inline void openSamplesWithMetadata(Workspace& ws, int count, size_t events,
                                    const std::filesystem::path& dir, const std::string& metadata) {
    std::ofstream(dir / "meta.csv") << metadata;
    ws.data().openTables(demoSamples(count, events));
    settle(ws);
    ws.data().openSampleMetadata((dir / "meta.csv").string());
}

/// The demo's cells (with its state markers when asked) written as `name`.fcs into
/// testFolder(name); returns the file's path (the caller removes its folder).
inline std::string writeDemoFcs(const std::string& name, size_t events, uint64_t seed,
                                bool stateMarkers) {
    const auto dir = testFolder(name);
    io::Table demo = demo::makeDemoTable(events, seed, stateMarkers);
    demo.source = (dir / (name + ".fcs")).string();
    io::writeFcs(demo.source, demo);
    return demo.source;
}

/// A workspace on the CPU backend with n synthetic cells opened (not yet trained).
inline std::unique_ptr<Workspace> openSynthetic(size_t n) {
    auto ws = std::make_unique<Workspace>("cpu");
    std::vector<io::Table> tables;
    tables.push_back(makeSyntheticTable(n));
    ws->data().openTables(std::move(tables));
    return ws;
}

/// Every cell projected at once by the CPU projector with the workspace's model and parameters.
inline std::vector<float> directProjection(const Workspace& ws) {
    const auto& st = ws.state();
    std::vector<float> xy(2 * st.data.events());
    makeCpuProjector()->project(st.data.points.data(), st.data.events(), st.data.points.cols,
                                st.model, st.embed, xy.data());
    return xy;
}

/// The demo's live cells: a rectangle on DNA (Ir191Di 4 to 9) and cisplatin (Pt195Di -1 to 3),
/// both on arcsinh(x/5), embedded as population "live".
inline GateSelection liveGate() {
    GateSelection live;
    GateNode rect{GateNode::Kind::Rectangle, "live", "live"};
    for (const auto& [channel, lo, hi] :
         {std::tuple{"Ir191Di", 4.0, 9.0}, {"Pt195Di", -1.0, 3.0}}) {
        GateDimension dim;
        dim.channel = channel;
        dim.scale = arcsinhScale(5.0);
        dim.min = lo, dim.max = hi;
        rect.dimensions.push_back(dim);
    }
    live.tree.gates.push_back(rect);
    live.population = "live";
    return live;
}

}  // namespace sepal::app
