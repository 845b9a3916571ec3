#include "core/train/layout_frame.h"

#include <cmath>

#include "core/model/landmark_edit.h"
#include "core/train/sampling.h"

namespace sepal {

LayoutFrame::Stats LayoutFrame::statsOf(const std::vector<float>& xy) {
    Stats s;
    const size_t g = xy.size() / 2;
    if (g == 0) return s;
    for (size_t i = 0; i < g; ++i) s.cx += xy[2 * i], s.cy += xy[2 * i + 1];
    s.cx /= static_cast<double>(g);
    s.cy /= static_cast<double>(g);
    double v = 0.0;
    for (size_t i = 0; i < g; ++i) {
        const double dx = xy[2 * i] - s.cx, dy = xy[2 * i + 1] - s.cy;
        v += dx * dx + dy * dy;
    }
    s.sd = std::sqrt(v / (2.0 * static_cast<double>(g)));
    return s;
}

std::vector<float> LayoutFrame::start(const LandmarkModel& model, float targetStd, uint64_t seed) {
    const size_t g = model.count();
    m_model = statsOf(model.low);
    std::vector<float> y(2 * g);
    if (!(m_model.sd > 0.0) || !std::isfinite(m_model.sd)) {
        // Nothing to refine: random start, and a spread of about sqrt(g) grid units afterwards.
        SplitMix rng(seed);
        for (float& v : y) v = targetStd * static_cast<float>(2.0 * rng.uniform() - 1.0);
        m_model.sd = std::sqrt(static_cast<double>(g)) / 3.5;
        return y;
    }
    const double scale = targetStd / m_model.sd;
    for (size_t i = 0; i < g; ++i) {
        y[2 * i] = static_cast<float>((model.low[2 * i] - m_model.cx) * scale);
        y[2 * i + 1] = static_cast<float>((model.low[2 * i + 1] - m_model.cy) * scale);
    }
    return y;
}

void LayoutFrame::pinLocked(const LandmarkModel& model, std::vector<float>& y) const {
    const size_t g = model.count();
    bool any = false;
    for (size_t i = 0; i < g && !any; ++i) any = lowLocked(model, i);
    if (!any) return;
    const Stats s = statsOf(y);
    const double scale = s.sd / m_model.sd;
    for (size_t i = 0; i < g; ++i)
        if (lowLocked(model, i)) {
            y[2 * i] = static_cast<float>(s.cx + (model.low[2 * i] - m_model.cx) * scale);
            y[2 * i + 1] = static_cast<float>(s.cy + (model.low[2 * i + 1] - m_model.cy) * scale);
        }
}

void LayoutFrame::writeBack(LandmarkModel& model, const std::vector<float>& y) const {
    const Stats s = statsOf(y);
    const double scale = s.sd > 0.0 ? m_model.sd / s.sd : 1.0;
    for (size_t i = 0; i < model.count(); ++i) {
        if (lowLocked(model, i)) continue;
        model.low[2 * i] = static_cast<float>(m_model.cx + (y[2 * i] - s.cx) * scale);
        model.low[2 * i + 1] = static_cast<float>(m_model.cy + (y[2 * i + 1] - s.cy) * scale);
    }
    ++model.lowVersion;
}

}  // namespace sepal
