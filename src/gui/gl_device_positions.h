#pragma once
// The window's vertex buffer as the GPU leg's device memory: CUDA-OpenGL interop when the
// context runs on the GPU's driver, host uploads otherwise.

#include <cstdint>
#include <memory>
#include <string>

#include "app/gpu_projection.h"
#include "render/cuda_interop.h"
#include "render/scatter_renderer.h"

namespace sepal::gui {

/// DevicePositions over the point renderer's position buffer.
class GlDevicePositions : public app::DevicePositions {
  public:
    /// points: the renderer whose position buffer receives the projection.
    explicit GlDevicePositions(render::ScatterRenderer& points) : m_points(points) {}
    void resize(size_t n) override;
    void attach(size_t n) override;
    float* map() override { return m_interop.map(); }
    void unmap() override { m_interop.unmap(); }
    void upload(const float* xy, size_t n) override { m_points.uploadPositions(0, n, xy); }
    std::string memoryLine() const override { return render::CudaGlBuffer::memoryLine(); }

  private:
    render::ScatterRenderer& m_points;
    render::CudaGlBuffer m_interop;
};

}  // namespace sepal::gui
