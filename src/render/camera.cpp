#include "render/camera.h"

#include <algorithm>
#include <cmath>

namespace sepal::render {

void Camera::setViewport(float width, float height) {
    m_width = std::max(width, 1.0f);
    m_height = std::max(height, 1.0f);
}

std::array<float, 2> Camera::toScreen(float wx, float wy) const {
    return {m_width * 0.5f + (wx - m_centreX) * m_pixelsPerUnit,
            m_height * 0.5f - (wy - m_centreY) * m_pixelsPerUnit};
}

std::array<float, 2> Camera::toWorld(float sx, float sy) const {
    return {m_centreX + (sx - m_width * 0.5f) / m_pixelsPerUnit,
            m_centreY - (sy - m_height * 0.5f) / m_pixelsPerUnit};
}

void Camera::panPixels(float dx, float dy) {
    m_centreX -= dx / m_pixelsPerUnit;
    m_centreY += dy / m_pixelsPerUnit;
}

void Camera::zoomAbout(float sx, float sy, float factor) {
    auto before = toWorld(sx, sy);
    m_pixelsPerUnit = std::clamp(m_pixelsPerUnit * factor, 1e-6f, 1e9f);
    auto after = toWorld(sx, sy);
    m_centreX += before[0] - after[0];
    m_centreY += before[1] - after[1];
}

void Camera::fit(const Bounds& b, float margin, float reserveRight, float reserveBottom) {
    float w = std::max(b.maxX - b.minX, 1e-6f);
    float h = std::max(b.maxY - b.minY, 1e-6f);
    // The area left over, never less than a tenth of the view.
    float areaW = std::max(m_width - std::max(reserveRight, 0.0f), 0.1f * m_width);
    float areaH = std::max(m_height - std::max(reserveBottom, 0.0f), 0.1f * m_height);
    float usable = 1.0f - 2.0f * margin;
    m_pixelsPerUnit = std::min(areaW * usable / w, areaH * usable / h);
    // The bounds' centre goes to the area's centre, (width - areaW) / 2 pixels left of the
    // view's and (height - areaH) / 2 above it.
    m_centreX = 0.5f * (b.minX + b.maxX) + 0.5f * (m_width - areaW) / m_pixelsPerUnit;
    m_centreY = 0.5f * (b.minY + b.maxY) - 0.5f * (m_height - areaH) / m_pixelsPerUnit;
}

void Camera::fitClearOfCorner(const Bounds& b, float cornerW, float cornerH) {
    fit(b);
    auto corner = toScreen(b.maxX, b.minY);  // the picture's lower right corner
    bool covered = corner[0] > m_width - cornerW && corner[1] > m_height - cornerH;
    if (cornerW <= 0 || cornerH <= 0 || !covered) return;
    Camera bottom = *this;
    fit(b, kFitMargin, cornerW, 0);
    bottom.fit(b, kFitMargin, 0, cornerH);
    if (bottom.m_pixelsPerUnit > m_pixelsPerUnit) *this = bottom;
}

void Camera::clipTransform(float scale[2], float offset[2]) const {
    scale[0] = 2.0f * m_pixelsPerUnit / m_width;
    scale[1] = 2.0f * m_pixelsPerUnit / m_height;
    offset[0] = -m_centreX * scale[0];
    offset[1] = -m_centreY * scale[1];
}

void Camera::setState(const std::array<float, 3>& s) {
    if (!std::isfinite(s[0]) || !std::isfinite(s[1]) || !(s[2] > 0)) return;
    m_centreX = s[0];
    m_centreY = s[1];
    m_pixelsPerUnit = s[2];
}

}  // namespace sepal::render
