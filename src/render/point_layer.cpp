#include "render/point_layer.h"

#include <algorithm>
#include <chrono>

namespace sepal::render {

PointLayer::PointLayer() : m_program("layer.vert", "layer.frag") {
    glGenVertexArrays(1, &m_vao);
    glGenBuffers(1, &m_buffer);
    glBindVertexArray(m_vao);
    glBindBuffer(GL_ARRAY_BUFFER, m_buffer);
    glBufferData(GL_ARRAY_BUFFER, 4 * 4 * sizeof(float), nullptr, GL_STREAM_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), nullptr);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float),
                          reinterpret_cast<void*>(2 * sizeof(float)));
    glBindVertexArray(0);
    glGenFramebuffers(2, m_fbo);
    glGenTextures(2, m_texture);
}

PointLayer::~PointLayer() {
    glDeleteTextures(2, m_texture);
    glDeleteFramebuffers(2, m_fbo);
    glDeleteBuffers(1, &m_buffer);
    glDeleteVertexArrays(1, &m_vao);
}

void PointLayer::allocate(int width, int height) {
    m_width = width, m_height = height;
    for (int i = 0; i < 2; ++i) {
        glBindTexture(GL_TEXTURE_2D, m_texture[i]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                     nullptr);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glBindFramebuffer(GL_FRAMEBUFFER, m_fbo[i]);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, m_texture[i],
                               0);
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    m_hasFront = false;
    m_cursor = 0;
    m_stale = true;
    m_sumsValid = false;
}

bool PointLayer::startRedraw(const Camera& camera, float pointSize, float alpha, bool onCpu) {
    if (m_cursor > 0 && onCpu != m_onCpu) m_cursor = 0, m_stale = true;  // the other way: anew
    m_onCpu = onCpu;
    if (m_cursor > 0) return true;
    if (!m_stale) return false;
    // A new redraw: settings and camera are frozen until it completes.
    m_stale = false;
    m_backCamera = camera;
    m_backSize = pointSize, m_backAlpha = alpha;
    m_redrawMs = 0;
    return true;
}

void PointLayer::completeRedraw(int back) {
    m_cursor = 0;
    m_front = back;
    m_frontCamera = m_backCamera;
    m_hasFront = true;
    m_lastRedrawMs = m_redrawMs;
}

void PointLayer::advance(const ScatterRenderer& points, const Camera& camera, float pointSize,
                         float alpha, int width, int height, double budgetMs) {
    using Clock = std::chrono::steady_clock;
    if (width <= 0 || height <= 0) return;
    if (width != m_width || height != m_height) allocate(width, height);
    int back = 1 - m_front;
    if (!startRedraw(camera, pointSize, alpha, false)) return;
    const bool fresh = m_cursor == 0;
    glBindFramebuffer(GL_FRAMEBUFFER, m_fbo[back]);
    glViewport(0, 0, width, height);
    if (fresh) {
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
    }
    auto start = Clock::now();
    size_t n = points.size();
    while (m_cursor < n) {
        double spent = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (spent >= budgetMs && spent > 0) break;
        size_t chunk = m_msPerPoint > 0 ? size_t((budgetMs - spent) / m_msPerPoint) : 50000;
        chunk = std::min(std::max<size_t>(chunk, 20000), n - m_cursor);
        auto t0 = Clock::now();
        points.drawRange(m_backCamera, m_backSize, m_backAlpha, m_cursor, chunk);
        glFinish();  // the time a chunk really costs, so the next chunk fits the budget
        double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        double perPoint = ms / double(chunk);
        m_msPerPoint = m_msPerPoint == 0 ? perPoint : 0.7 * m_msPerPoint + 0.3 * perPoint;
        m_cursor += chunk;
    }
    m_redrawMs += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (m_cursor >= n) completeRedraw(back);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void PointLayer::advanceOnCpu(const float* xy, const uint8_t* rgba, size_t n, const Camera& camera,
                              float pointSize, float alpha, int width, int height,
                              double budgetMs) {
    using Clock = std::chrono::steady_clock;
    if (width <= 0 || height <= 0) return;
    if (width != m_width || height != m_height) allocate(width, height);
    const int back = 1 - m_front;
    if (!startRedraw(camera, pointSize, alpha, true)) return;
    // Other cells (a file opened) while a redraw was under way: it starts anew, on cleared sums.
    if (m_cursor > 0 && m_drawnXy.size() != 2 * n) m_cursor = 0, m_sumsValid = false;
    const auto start = Clock::now();
    float scale[2], offset[2];
    m_backCamera.clipTransform(scale, offset);
    if (m_cursor == 0) {
        // The sums of the last picture serve when they are of these cells in this view: only
        // what changed since is drawn again. Else every cell, onto cleared sums.
        const std::array<float, 5> view = {scale[0], scale[1], offset[0], offset[1], m_backSize};
        m_updating = m_sumsValid && view == m_sumsView && m_drawnXy.size() == 2 * n &&
                     m_cpu.width() == width && m_cpu.height() == height;
        if (!m_updating) {
            m_cpu.begin(width, height);
            m_drawnXy.resize(2 * n);
            m_drawnRgba.resize(4 * n);
            m_sumsView = view;
            m_sumsValid = false;  // until every cell is in
        }
    }
    while (m_cursor < n) {
        const double spent =
            std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (spent >= budgetMs && spent > 0) break;
        double& msPer = m_updating ? m_msPerCheck : m_msPerPoint;
        size_t chunk = msPer > 0 ? size_t((budgetMs - spent) / msPer) : 200000;
        chunk = std::min(std::max<size_t>(chunk, 50000), n - m_cursor);
        const auto t0 = Clock::now();
        if (m_updating)
            m_cpu.update(m_drawnXy.data(), m_drawnRgba.data(), xy, rgba, m_cursor, chunk, scale,
                         offset, m_backSize);
        else
            m_cpu.draw(xy, rgba, m_cursor, chunk, scale, offset, m_backSize);
        std::copy(xy + 2 * m_cursor, xy + 2 * (m_cursor + chunk),
                  m_drawnXy.begin() + long(2 * m_cursor));
        std::copy(rgba + 4 * m_cursor, rgba + 4 * (m_cursor + chunk),
                  m_drawnRgba.begin() + long(4 * m_cursor));
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        const double perPoint = ms / double(chunk);
        msPer = msPer == 0 ? perPoint : 0.7 * msPer + 0.3 * perPoint;
        m_cursor += chunk;
    }
    if (m_cursor >= n) {
        m_sumsValid = true;
        m_cpu.finish(m_cpuBytes, m_backAlpha);
        glBindTexture(GL_TEXTURE_2D, m_texture[back]);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE,
                        m_cpuBytes.data());
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    m_redrawMs += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (m_cursor >= n) completeRedraw(back);
}

void PointLayer::advanceOnCuda(const float* xy, const uint8_t* rgba, size_t n, const Camera& camera,
                               float pointSize, float alpha, int width, int height) {
    using Clock = std::chrono::steady_clock;
    if (width <= 0 || height <= 0) return;
    if (width != m_width || height != m_height) allocate(width, height);
    const int back = 1 - m_front;
    m_cursor = 0;  // a redraw by OpenGL under way is replaced by a whole picture
    if (!startRedraw(camera, pointSize, alpha, false)) return;
    const auto start = Clock::now();
    if (!m_cuda) m_cuda = std::make_unique<CudaLayerPainter>();
    float scale[2], offset[2];
    m_backCamera.clipTransform(scale, offset);
    try {
        m_cuda->paint(m_texture[back], width, height, xy, rgba, n, scale, offset, m_backSize,
                      m_backAlpha);
    } catch (...) {
        m_stale = true;  // drawn again the other way
        throw;
    }
    m_redrawMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    completeRedraw(back);
}

double PointLayer::lastCudaDeviceMs() const {
    return m_cuda ? m_cuda->lastDeviceMs() : 0.0;
}

void PointLayer::present(const Camera& camera) {
    if (!m_hasFront) return;
    // The layer's corners, drawn with the front camera, placed where the current camera puts them.
    float w = m_frontCamera.width(), h = m_frontCamera.height();
    auto a = m_frontCamera.toWorld(0, 0);
    auto b = m_frontCamera.toWorld(w, h);
    auto p = camera.toScreen(a[0], a[1]);
    auto q = camera.toScreen(b[0], b[1]);
    float quad[16] = {p[0], p[1], 0, 1, q[0], p[1], 1, 1, p[0], q[1], 0, 0, q[0], q[1], 1, 0};
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    m_program.use();
    glUniform2f(m_program.uniform("uViewport"), camera.width(), camera.height());
    glUniform1i(m_program.uniform("uLayer"), 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, m_texture[m_front]);
    glBindVertexArray(m_vao);
    glBindBuffer(GL_ARRAY_BUFFER, m_buffer);
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof quad, quad);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D, 0);
}

}  // namespace sepal::render
