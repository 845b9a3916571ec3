#include "render/point_drawer.h"

#include <algorithm>

#include "render/cuda_layer.h"

namespace sepal::render {

namespace {

// Once the picture's cells are all projected the CPU's splats may take this many times the
// budget: nothing else needs the frame then, and the picture settles sooner.
constexpr double kIdleLayerShare = 2.0;

// OpenGL's point sprites from the vertex buffers, spread over frames within the budget.
class OpenGlPoints : public PointDrawer {
  public:
    const char* name() const override { return "opengl-points"; }
    const char* label() const override { return "OpenGL"; }
    bool advance(PointLayer& layer, const PointSource& source, const LayerStyle& s) override {
        layer.advance(*source.buffers, s.camera, s.pointSize, s.alpha, s.width, s.height,
                      s.budgetMs);
        return true;
    }
};

// Splats summed on the CPU from the host positions and uploaded when complete.
class CpuSplatDrawer : public PointDrawer {
  public:
    const char* name() const override { return "cpu-splats"; }
    const char* label() const override { return "CPU"; }
    bool holdsAfterDrag() const override { return true; }
    bool advance(PointLayer& layer, const PointSource& source, const LayerStyle& s) override {
        if (!source.hostXy || !source.hostRgba) return false;
        // Right after a drag the front picture stays (moved with the camera) until the cells
        // the drag moved are projected: a redraw now would be stale when done.
        if (!s.hold)
            layer.advanceOnCpu(source.hostXy, source.hostRgba, source.n, s.camera, s.pointSize,
                               s.alpha, s.width, s.height,
                               s.idle ? kIdleLayerShare * s.budgetMs : s.budgetMs);
        return true;
    }
};

// The whole picture splatted by CUDA from the positions the projector keeps on the device.
class CudaSplatDrawer : public PointDrawer {
  public:
    const char* name() const override { return "cuda-splats"; }
    const char* label() const override { return "CUDA"; }
    bool drawsFromDevice() const override { return true; }
    bool advance(PointLayer& layer, const PointSource& source, const LayerStyle& s) override {
        if (!source.deviceXy || !source.hostRgba || source.n == 0) return false;
        if (!layer.busy()) return true;  // the picture is current
        if (!m_colours) m_colours = std::make_unique<CudaColours>();
        if (m_coloursVersion != source.coloursVersion || m_coloured != source.n) {
            m_colours->upload(source.hostRgba, source.n);
            m_coloursVersion = source.coloursVersion;
            m_coloured = source.n;
        }
        layer.advanceOnCuda(source.deviceXy, m_colours->data(), source.n, s.camera, s.pointSize,
                            s.alpha, s.width, s.height);
        return true;
    }

  private:
    std::unique_ptr<CudaColours> m_colours;  // the colours the splats read
    uint64_t m_coloursVersion = ~0ull;
    size_t m_coloured = 0;
};

std::unique_ptr<PointDrawer> makeDrawer(const std::string& name) {
    if (name == "cuda-splats") return std::make_unique<CudaSplatDrawer>();
    if (name == "cpu-splats") return std::make_unique<CpuSplatDrawer>();
    return std::make_unique<OpenGlPoints>();
}

// Why `name` cannot draw on this machine ("" when it can).
std::string unusable(const std::string& name, const DrawerMachine& m) {
    if (name == "cuda-splats" && !m.cudaBuilt) return "this build has no CUDA splats";
    if (name == "cuda-splats" && !m.cudaAllowed) return "SEPAL_CUDA_SPLATS=0 turned them off";
    if (name == "cpu-splats" && !m.cpuAllowed) return "SEPAL_CPU_SPLATS=0 turned them off";
    if (name == "cuda-splats" && !m.hardwareOpenGl)
        return "OpenGL runs in software, where CUDA cannot reach its textures";
    return "";
}

}  // namespace

std::vector<std::string> pointDrawerNames() {
    return {"cuda-splats", "cpu-splats", "opengl-points"};
}

std::unique_ptr<PointDrawer> openGlPointDrawer() {
    return std::make_unique<OpenGlPoints>();
}

DrawerChoice choosePointDrawer(const std::string& name, const DrawerMachine& machine) {
    const auto names = pointDrawerNames();
    std::string refused;
    if (!name.empty() && name != "auto") {
        if (std::find(names.begin(), names.end(), name) == names.end())
            refused = name + " is not a point drawer (" + names[0] + ", " + names[1] + " or " +
                      names[2] + ")";
        else
            refused = unusable(name, machine);
        if (refused.empty()) return {makeDrawer(name), "asked for"};
        refused = "not " + name + ": " + refused + "; ";
    }
    // OpenGL's points cost the H100 about 60 ms for 10M cells, CUDA's splats 1.5 ms; software
    // OpenGL takes about half a second for a million points, the CPU's splats a tenth.
    if (machine.hardwareOpenGl && machine.cudaBuilt && machine.cudaAllowed)
        return {makeDrawer("cuda-splats"),
                refused +
                    "OpenGL runs on the GPU's driver: CUDA splats the cells the GPU "
                    "projects (OpenGL's points when the CPU projects)"};
    if (!machine.hardwareOpenGl && machine.cpuAllowed)
        return {makeDrawer("cpu-splats"),
                refused +
                    "OpenGL runs in software, which rasterises points slowly: the CPU "
                    "splats them"};
    return {makeDrawer("opengl-points"),
            refused + (machine.hardwareOpenGl ? "OpenGL runs on a GPU"
                                              : "software OpenGL, the CPU splats turned off "
                                                "(SEPAL_CPU_SPLATS=0)")};
}

}  // namespace sepal::render
