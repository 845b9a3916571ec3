#pragma once
// The point cloud cached in a texture and redrawn progressively: a redraw is spread over frames
// within a time budget into a back buffer, then swapped in, while the front buffer is shown
// moved to follow the camera. Software OpenGL (llvmpipe) draws a million splats in about half a
// second; this keeps the window at full frame rate regardless.

#include <epoxy/gl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "render/camera.h"
#include "render/cpu_splats.h"
#include "render/cuda_layer.h"
#include "render/gl_program.h"
#include "render/scatter_renderer.h"

namespace sepal::render {

/// Two colour textures of the canvas's size; the front one is shown, the back one filled.
class PointLayer {
  public:
    PointLayer();
    ~PointLayer();
    PointLayer(const PointLayer&) = delete;
    PointLayer& operator=(const PointLayer&) = delete;

    /// The picture is stale (points moved, colours, camera or drawing settings changed).
    void invalidate() { m_stale = true; }
    /// Abandons a redraw under way (it drew positions that changed since): the next starts anew.
    void restart() {
        m_cursor = 0;
        m_stale = true;
    }
    /// Continues (or starts) the redraw into the back buffer for about budgetMs; width x height
    /// framebuffer pixels. Leaves the default framebuffer bound and the viewport unset.
    void advance(const ScatterRenderer& points, const Camera& camera, float pointSize, float alpha,
                 int width, int height, double budgetMs);
    /// As advance, with the points splatted on the CPU (CpuSplats) and the picture uploaded when
    /// complete: for software OpenGL. xy: n x 2 world positions; rgba: n x 4 colour bytes (what
    /// the renderer's buffers hold), read in chunks while the redraw lasts. With the same view,
    /// point size and cells as the last picture, only the cells whose position or colour changed
    /// since are taken out and drawn again (a drag moves a few percent of them).
    void advanceOnCpu(const float* xy, const uint8_t* rgba, size_t n, const Camera& camera,
                      float pointSize, float alpha, int width, int height, double budgetMs);
    /// As advance, with the whole picture splatted by CUDA in one go (CudaLayerPainter, which
    /// redraws only the changed cells while the view stays): xy and rgba are device pointers (the
    /// mapped vertex buffers). Throws std::runtime_error on CUDA failures (the caller then draws
    /// with OpenGL).
    void advanceOnCuda(const float* xy, const uint8_t* rgba, size_t n, const Camera& camera,
                       float pointSize, float alpha, int width, int height);
    /// Draws the front buffer into the bound viewport (camera's area), moved from the camera it
    /// was drawn with to `camera`.
    void present(const Camera& camera);
    /// True while a redraw is in progress or pending.
    bool busy() const { return m_stale || m_cursor > 0; }
    /// Milliseconds the last complete redraw took over all its frames' drawing.
    double lastRedrawMs() const { return m_lastRedrawMs; }
    /// Milliseconds the last CUDA redraw's kernels took on the device (0: none yet).
    double lastCudaDeviceMs() const;

  private:
    void allocate(int width, int height);
    /// Starts a redraw when stale (or when the last one was drawn the other way, on the CPU or
    /// by OpenGL): freezes camera and settings; false when nothing is due.
    bool startRedraw(const Camera& camera, float pointSize, float alpha, bool onCpu);
    /// Makes the back buffer the front one after a complete redraw.
    void completeRedraw(int back);
    GlProgram m_program;
    GLuint m_vao = 0, m_buffer = 0;
    GLuint m_fbo[2] = {0, 0}, m_texture[2] = {0, 0};
    int m_width = 0, m_height = 0, m_front = 0;
    bool m_stale = true, m_hasFront = false;
    size_t m_cursor = 0;
    double m_msPerPoint = 0, m_redrawMs = 0, m_lastRedrawMs = 0;
    Camera m_backCamera, m_frontCamera;
    float m_backSize = 1, m_backAlpha = 1;
    bool m_onCpu = false;  // the redraw under way is splatted on the CPU
    CpuSplats m_cpu;       // the back picture when splatted on the CPU
    // What m_cpu's sums hold: the cells as drawn, for the view and point size below. Valid once
    // a whole picture was drawn; an update keeps it valid cell by cell.
    std::vector<float> m_drawnXy;
    std::vector<uint8_t> m_drawnRgba;
    bool m_sumsValid = false, m_updating = false;  // m_updating: the redraw under way updates
    std::array<float, 5> m_sumsView{};             // clip scale and offset, point size
    double m_msPerCheck = 0;                       // an update's cost per cell checked
    std::unique_ptr<CudaLayerPainter> m_cuda;      // made on the first picture splatted by CUDA
    std::vector<uint8_t> m_cpuBytes;               // its upload
};

}  // namespace sepal::render
