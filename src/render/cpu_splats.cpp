#include "render/cpu_splats.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sepal::render {

namespace {

/// Coverage units per splat pixel at full coverage (cuda::kSplatCoverageUnits).
constexpr int kCoverageUnits = 16;

/// floor(v) as an int without a call into the maths library (x86-64's baseline has no roundss).
inline int floorToInt(float v) {
    const int i = int(v);
    return i - (v < float(i));
}

/// World to pixel (x * ax + bx, pixel centres at whole numbers), the splat's half size and the
/// picture's size, as the CUDA splats compute them.
struct Geometry {
    float ax, bx, ay, by, half, inverseHalf;
    int width, height;

    Geometry(const float scale[2], const float offset[2], float pointSize, int w, int h) {
        const float toPixelX = 0.5f * float(w), toPixelY = 0.5f * float(h);
        ax = scale[0] * toPixelX, bx = (offset[0] + 1.0f) * toPixelX - 0.5f;
        ay = scale[1] * toPixelY, by = (offset[1] + 1.0f) * toPixelY - 0.5f;
        half = 0.5f * pointSize;
        inverseHalf = half > 0 ? 1.0f / half : 0.0f;
        width = w, height = h;
    }
};

/// Adds (sign 1) or takes out (sign -1, modulo 2^32: exact) one cell's splat in rows [y0, y1)
/// of the sums: every pixel whose centre lies in the point's square and inside its disc, with
/// the soft rim, each product and sum rounded on its own as the CUDA splats round them.
inline void splat(uint32_t* sums, const Geometry& g, int y0, int y1, const float* p,
                  const uint8_t* c, uint32_t sign) {
    if (c[3] == 0) return;  // a cell outside the gates
    const float cy = p[1] * g.ay + g.by;
    if (!(cy > float(y0) - g.half - 0.5f && cy < float(y1) + g.half - 0.5f)) return;  // or NaN
    const float cx = p[0] * g.ax + g.bx;
    if (!(cx > -g.half - 1.0f && cx < float(g.width) + g.half)) return;
    const int px0 = std::max(0, -floorToInt(g.half - cx));
    const int px1 = std::min(g.width - 1, floorToInt(cx + g.half));
    const int py0 = std::max(y0, -floorToInt(g.half - cy));
    const int py1 = std::min(y1 - 1, floorToInt(cy + g.half));
    const float units = float(kCoverageUnits) * float(c[3]) / 255.0f;
    for (int y = py0; y <= py1; ++y) {
        const float dy = (float(y) - cy) * g.inverseHalf;
        uint32_t* row = sums + size_t(y) * size_t(g.width) * 4;
        for (int x = px0; x <= px1; ++x) {
            const float dx = (float(x) - cx) * g.inverseHalf;
            const float r2 = dx * dx + dy * dy;
            if (r2 > 1.0f) continue;
            float cover = 1.0f;
            if (r2 > 0.6f) {  // points.frag: 1 - smoothstep(0.6, 1.0, r2) at the rim
                const float t = (r2 - 0.6f) * 2.5f;
                cover = 1.0f - t * t * (3.0f - 2.0f * t);
            }
            const uint32_t q = uint32_t(std::nearbyint(cover * units)) * sign;
            uint32_t* s = row + 4 * size_t(x);
            s[0] += c[0] * q, s[1] += c[1] * q, s[2] += c[2] * q, s[3] += q;
        }
    }
}

/// The band of rows thread `me` of `threads` owns.
inline void bandOf(int height, int me, int threads, int& y0, int& y1) {
    y0 = int(int64_t(height) * me / threads);
    y1 = int(int64_t(height) * (me + 1) / threads);
}

}  // namespace

void CpuSplats::begin(int width, int height) {
    m_width = std::max(width, 0), m_height = std::max(height, 0);
    m_sums.assign(size_t(m_width) * size_t(m_height) * 4, 0u);
}

void CpuSplats::draw(const float* xy, const uint8_t* rgba, size_t first, size_t count,
                     const float scale[2], const float offset[2], float pointSize) {
    if (m_width == 0 || m_height == 0 || count == 0) return;
    const Geometry g(scale, offset, pointSize, m_width, m_height);
#pragma omp parallel if (count >= 4096)
    {
        // Each thread owns a band of rows and adds every cell that reaches it.
        int y0 = 0, y1 = 0;
        bandOf(m_height, omp_get_thread_num(), omp_get_num_threads(), y0, y1);
        for (size_t i = first; i < first + count; ++i)
            splat(m_sums.data(), g, y0, y1, xy + 2 * i, rgba + 4 * i, 1u);
    }
}

size_t CpuSplats::update(const float* drawnXy, const uint8_t* drawnRgba, const float* xy,
                         const uint8_t* rgba, size_t first, size_t count, const float scale[2],
                         const float offset[2], float pointSize) {
    if (m_width == 0 || m_height == 0 || count == 0) return 0;
    const Geometry g(scale, offset, pointSize, m_width, m_height);
    // Bytes compared, not floats: a NaN position that stays NaN is no change.
    const auto changed = [&](size_t i) {
        return std::memcmp(drawnXy + 2 * i, xy + 2 * i, 2 * sizeof(float)) != 0 ||
               std::memcmp(drawnRgba + 4 * i, rgba + 4 * i, 4) != 0;
    };
    // The changed cells listed once (cells split between the threads), then each thread takes
    // them out and puts them back in its band of rows: a drag's few percent, not every cell.
    std::vector<size_t> moved;
#pragma omp parallel if (count >= 4096)
    {
        std::vector<size_t> mine;
#pragma omp for schedule(static) nowait
        for (size_t i = first; i < first + count; ++i)
            if (changed(i)) mine.push_back(i);
#pragma omp critical
        moved.insert(moved.end(), mine.begin(), mine.end());
#pragma omp barrier
        int y0 = 0, y1 = 0;
        bandOf(m_height, omp_get_thread_num(), omp_get_num_threads(), y0, y1);
        for (const size_t i : moved) {
            splat(m_sums.data(), g, y0, y1, drawnXy + 2 * i, drawnRgba + 4 * i, ~0u);
            splat(m_sums.data(), g, y0, y1, xy + 2 * i, rgba + 4 * i, 1u);
        }
    }
    return moved.size();
}

void CpuSplats::finish(std::vector<uint8_t>& rgba8, float alpha) const {
    rgba8.resize(m_sums.size());
    // 1 - (1 - alpha)^(splats), splats = coverage / units, as the CUDA splats resolve.
    const float logKeep = alpha >= 1.0f ? -INFINITY : std::log2(1.0f - alpha);
    const auto byte = [](float v) {
        return uint8_t(std::nearbyint(std::clamp(v, 0.0f, 1.0f) * 255.0f));
    };
    const size_t pixels = m_sums.size() / 4;
#pragma omp parallel for if (pixels >= 65536)
    for (size_t i = 0; i < pixels; ++i) {
        const uint32_t* s = m_sums.data() + 4 * i;
        uint8_t* out = rgba8.data() + 4 * i;
        if (s[3] == 0) {
            out[0] = out[1] = out[2] = out[3] = 0;
            continue;
        }
        const float a = 1.0f - std::exp2(float(s[3]) * (logKeep / float(kCoverageUnits)));
        const float scale = a / (255.0f * float(s[3]));
        out[0] = byte(float(s[0]) * scale), out[1] = byte(float(s[1]) * scale);
        out[2] = byte(float(s[2]) * scale), out[3] = byte(a);
    }
}

}  // namespace sepal::render
