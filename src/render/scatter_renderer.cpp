#include "render/scatter_renderer.h"

#include <algorithm>

namespace sepal::render {

ScatterRenderer::ScatterRenderer() : m_program("points.vert", "points.frag") {
    glGenVertexArrays(1, &m_vao);
    glGenBuffers(1, &m_positions);
    glGenBuffers(1, &m_colours);
    glBindVertexArray(m_vao);
    glBindBuffer(GL_ARRAY_BUFFER, m_positions);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glBindBuffer(GL_ARRAY_BUFFER, m_colours);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, nullptr);
    glBindVertexArray(0);
}

ScatterRenderer::~ScatterRenderer() {
    glDeleteBuffers(1, &m_colours);
    glDeleteBuffers(1, &m_positions);
    glDeleteVertexArrays(1, &m_vao);
}

void ScatterRenderer::resize(size_t n) {
    m_count = n;
    glBindBuffer(GL_ARRAY_BUFFER, m_positions);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(n * 2 * sizeof(float)), nullptr, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, m_colours);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(n * 4), nullptr, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void ScatterRenderer::uploadPositions(size_t first, size_t count, const float* xy) {
    if (count == 0 || first + count > m_count) return;
    glBindBuffer(GL_ARRAY_BUFFER, m_positions);
    glBufferSubData(GL_ARRAY_BUFFER, GLintptr(first * 2 * sizeof(float)),
                    GLsizeiptr(count * 2 * sizeof(float)), xy);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void ScatterRenderer::uploadColours(size_t first, size_t count, const uint8_t* rgba) {
    if (count == 0 || first + count > m_count) return;
    glBindBuffer(GL_ARRAY_BUFFER, m_colours);
    glBufferSubData(GL_ARRAY_BUFFER, GLintptr(first * 4), GLsizeiptr(count * 4), rgba);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void ScatterRenderer::draw(const Camera& camera, float pointSize, float alpha) const {
    drawRange(camera, pointSize, alpha, 0, m_count);
}

void ScatterRenderer::drawRange(const Camera& camera, float pointSize, float alpha, size_t first,
                                size_t count) const {
    count = first < m_count ? std::min(count, m_count - first) : 0;
    if (count == 0) return;
    float scale[2], offset[2];
    camera.clipTransform(scale, offset);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    m_program.use();
    glUniform2f(m_program.uniform("uScale"), scale[0], scale[1]);
    glUniform2f(m_program.uniform("uOffset"), offset[0], offset[1]);
    glUniform1f(m_program.uniform("uPointSize"), pointSize);
    glUniform1f(m_program.uniform("uAlpha"), alpha);
    glBindVertexArray(m_vao);
    glDrawArrays(GL_POINTS, GLint(first), GLsizei(count));
    glBindVertexArray(0);
}

}  // namespace sepal::render
