#include "render/overlay_renderer.h"

#include <cmath>

namespace sepal::render {

namespace {
constexpr int kCircleSegments = 20;
constexpr float kTwoPi = 6.28318530718f;
}  // namespace

OverlayRenderer::OverlayRenderer() : m_program("overlay.vert", "overlay.frag") {
    glGenVertexArrays(1, &m_vao);
    glGenBuffers(1, &m_buffer);
    glBindVertexArray(m_vao);
    glBindBuffer(GL_ARRAY_BUFFER, m_buffer);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(Vertex), nullptr);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(Vertex),
                          reinterpret_cast<void*>(offsetof(Vertex, colour)));
    glBindVertexArray(0);
}

OverlayRenderer::~OverlayRenderer() {
    glDeleteBuffers(1, &m_buffer);
    glDeleteVertexArrays(1, &m_vao);
}

void OverlayRenderer::triangle(float ax, float ay, float bx, float by, float cx, float cy,
                               Rgba8 colour) {
    m_vertices.push_back({ax, ay, colour});
    m_vertices.push_back({bx, by, colour});
    m_vertices.push_back({cx, cy, colour});
}

void OverlayRenderer::line(float x0, float y0, float x1, float y1, float width, Rgba8 colour) {
    float dx = x1 - x0, dy = y1 - y0;
    float len = std::sqrt(dx * dx + dy * dy);
    if (len < 1e-6f) return;
    float nx = -dy / len * width * 0.5f, ny = dx / len * width * 0.5f;
    triangle(x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, colour);
    triangle(x0 + nx, y0 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny, colour);
}

void OverlayRenderer::disc(float x, float y, float r, Rgba8 colour) {
    for (int i = 0; i < kCircleSegments; ++i) {
        float a0 = kTwoPi * i / kCircleSegments, a1 = kTwoPi * (i + 1) / kCircleSegments;
        triangle(x, y, x + r * std::cos(a0), y + r * std::sin(a0), x + r * std::cos(a1),
                 y + r * std::sin(a1), colour);
    }
}

void OverlayRenderer::ring(float x, float y, float r, float width, Rgba8 colour) {
    float inner = r - width * 0.5f, outer = r + width * 0.5f;
    for (int i = 0; i < kCircleSegments; ++i) {
        float a0 = kTwoPi * i / kCircleSegments, a1 = kTwoPi * (i + 1) / kCircleSegments;
        float c0 = std::cos(a0), s0 = std::sin(a0), c1 = std::cos(a1), s1 = std::sin(a1);
        triangle(x + inner * c0, y + inner * s0, x + outer * c0, y + outer * s0, x + outer * c1,
                 y + outer * s1, colour);
        triangle(x + inner * c0, y + inner * s0, x + outer * c1, y + outer * s1, x + inner * c1,
                 y + inner * s1, colour);
    }
}

void OverlayRenderer::draw(float width, float height) {
    if (m_vertices.empty()) return;
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    m_program.use();
    glUniform2f(m_program.uniform("uViewport"), width, height);
    glBindVertexArray(m_vao);
    glBindBuffer(GL_ARRAY_BUFFER, m_buffer);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(m_vertices.size() * sizeof(Vertex)), m_vertices.data(),
                 GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, GLsizei(m_vertices.size()));
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindVertexArray(0);
}

}  // namespace sepal::render
