#pragma once
// Draws the point cloud: one alpha-blended round splat per cell from GPU vertex buffers.

#include <epoxy/gl.h>

#include <cstddef>
#include <cstdint>

#include "render/camera.h"
#include "render/gl_program.h"

namespace sepal::render {

/// Owns the position (n x 2 float) and colour (n x RGBA8) buffers and draws them as splats.
class ScatterRenderer {
  public:
    ScatterRenderer();
    ~ScatterRenderer();
    ScatterRenderer(const ScatterRenderer&) = delete;
    ScatterRenderer& operator=(const ScatterRenderer&) = delete;

    /// Reallocates both buffers for n points (contents undefined until uploaded).
    void resize(size_t n);
    /// Number of points the buffers hold.
    size_t size() const { return m_count; }
    /// Uploads positions of points [first, first + count): xy is count x 2, world units.
    void uploadPositions(size_t first, size_t count, const float* xy);
    /// Uploads colours of points [first, first + count): rgba is count x 4 bytes.
    void uploadColours(size_t first, size_t count, const uint8_t* rgba);
    /// Draws all points; pointSize in framebuffer pixels, alpha in [0, 1].
    void draw(const Camera& camera, float pointSize, float alpha) const;
    /// Draws points [first, first + count) only (a progressive redraw spreads one over frames).
    void drawRange(const Camera& camera, float pointSize, float alpha, size_t first,
                   size_t count) const;
    /// The position buffer object (for CUDA-GL interop, which writes into it directly).
    GLuint positionBuffer() const { return m_positions; }
    /// The colour buffer object (for CUDA-GL interop: the CUDA splats read it).
    GLuint colourBuffer() const { return m_colours; }

  private:
    GlProgram m_program;
    GLuint m_vao = 0, m_positions = 0, m_colours = 0;
    size_t m_count = 0;
};

}  // namespace sepal::render
