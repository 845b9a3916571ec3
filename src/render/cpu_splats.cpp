#include "render/cpu_splats.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace sepal::render {

void CpuSplats::begin(int width, int height) {
    m_width = std::max(width, 0), m_height = std::max(height, 0);
    m_pixels.assign(size_t(m_width) * size_t(m_height) * 4, 0.0f);
}

namespace {
/// A pixel's premultiplied RGBA as one vector (16 bytes, the layout of m_pixels).
typedef float Pixel __attribute__((vector_size(16), aligned(16)));

/// floor(v) as an int without a call into the maths library (x86-64's baseline has no roundss).
inline int floorToInt(float v) {
    const int i = int(v);
    return i - (v < float(i));
}
}  // namespace

void CpuSplats::draw(const float* xy, const uint8_t* rgba, size_t first, size_t count,
                     const float scale[2], const float offset[2], float pointSize, float alpha) {
    if (m_width == 0 || m_height == 0 || count == 0) return;
    const float half = 0.5f * pointSize;
    const float toPixelX = 0.5f * float(m_width), toPixelY = 0.5f * float(m_height);
    const float inverseHalf = half > 0 ? 1.0f / half : 0.0f;
    // World to pixel in one multiply-add; pixel centres are at +0.5.
    const float ax = scale[0] * toPixelX, bx = (offset[0] + 1.0f) * toPixelX - 0.5f;
    const float ay = scale[1] * toPixelY, by = (offset[1] + 1.0f) * toPixelY - 0.5f;
    const long long last = static_cast<long long>(first + count);
#pragma omp parallel if (count >= 4096)
    {
        // Each thread owns a band of rows and blends every point that reaches it, in order.
        const int threads = omp_get_num_threads(), me = omp_get_thread_num();
        const int y0 = int(int64_t(m_height) * me / threads);
        const int y1 = int(int64_t(m_height) * (me + 1) / threads);
        const float bandLow = float(y0) - half - 0.5f, bandHigh = float(y1) + half - 0.5f;
        for (long long i = static_cast<long long>(first); i < last; ++i) {
            // The point's centre, in pixel units where pixel p's centre is at p.
            const float cy = xy[2 * i + 1] * ay + by;
            if (!(cy > bandLow && cy < bandHigh)) continue;  // another band's (or NaN)
            const uint8_t* c = rgba + 4 * i;
            if (c[3] == 0) continue;  // a cell outside the gates
            const float cx = xy[2 * i] * ax + bx;
            if (!(cx > -half - 1.0f && cx < float(m_width) + half)) continue;
            // Pixels whose centres lie inside the point's square, as OpenGL rasterises points.
            const int px0 = std::max(0, -floorToInt(half - cx));
            const int px1 = std::min(m_width - 1, floorToInt(cx + half));
            const int py0 = std::max(y0, -floorToInt(half - cy));
            const int py1 = std::min(y1 - 1, floorToInt(cy + half));
            const Pixel colour = {c[0] * (1.0f / 255), c[1] * (1.0f / 255), c[2] * (1.0f / 255),
                                  1.0f};
            const float a0 = c[3] * (1.0f / 255) * alpha;
            for (int y = py0; y <= py1; ++y) {
                const float dy = (float(y) - cy) * inverseHalf;
                float* row = m_pixels.data() + (size_t(y) * size_t(m_width)) * 4;
                for (int x = px0; x <= px1; ++x) {
                    const float dx = (float(x) - cx) * inverseHalf;
                    const float r2 = dx * dx + dy * dy;
                    if (r2 > 1.0f) continue;
                    // points.frag: 1 - smoothstep(0.6, 1.0, r2) at the rim.
                    float a = a0;
                    if (r2 > 0.6f) {
                        const float t = (r2 - 0.6f) * 2.5f;
                        a = a0 * (1.0f - t * t * (3.0f - 2.0f * t));
                    }
                    // Colour by (a, 1 - a), alpha by (1, 1 - a): the renderer's blend function,
                    // the pixel's four values at once (the same products and sums per value).
                    Pixel* p = reinterpret_cast<Pixel*>(row + 4 * size_t(x));
                    const float keep = 1.0f - a;
                    *p = colour * a + *p * keep;
                }
            }
        }
    }
}

void CpuSplats::finish(std::vector<uint8_t>& rgba8) const {
    rgba8.resize(m_pixels.size());
    for (size_t i = 0; i < m_pixels.size(); ++i)
        rgba8[i] = uint8_t(std::lround(std::clamp(m_pixels[i], 0.0f, 1.0f) * 255.0f));
}

}  // namespace sepal::render
