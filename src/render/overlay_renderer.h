#pragma once
// Draws overlay shapes (the landmark graph, landmark discs) as triangles in window pixels.

#include <epoxy/gl.h>

#include <cstdint>
#include <vector>

#include "render/gl_program.h"

namespace sepal::render {

/// An RGBA colour, 8 bits per channel.
struct Rgba8 {
    uint8_t r = 255, g = 255, b = 255, a = 255;  ///< channels
};

/// Collects triangles for one frame (clear, add shapes, draw); coordinates in logical pixels.
class OverlayRenderer {
  public:
    OverlayRenderer();
    ~OverlayRenderer();
    OverlayRenderer(const OverlayRenderer&) = delete;
    OverlayRenderer& operator=(const OverlayRenderer&) = delete;

    /// Drops the shapes of the previous frame.
    void clear() { m_vertices.clear(); }
    /// A line segment of `width` pixels.
    void line(float x0, float y0, float x1, float y1, float width, Rgba8 colour);
    /// A filled disc of radius r pixels.
    void disc(float x, float y, float r, Rgba8 colour);
    /// A ring (circle outline) of radius r and `width` pixels.
    void ring(float x, float y, float r, float width, Rgba8 colour);
    /// Draws what was added over a viewport of width x height logical pixels.
    void draw(float width, float height);

  private:
    struct Vertex {
        float x, y;
        Rgba8 colour;
    };
    void triangle(float ax, float ay, float bx, float by, float cx, float cy, Rgba8 colour);
    GlProgram m_program;
    GLuint m_vao = 0, m_buffer = 0;
    std::vector<Vertex> m_vertices;
};

}  // namespace sepal::render
