#include "app/biaxial.h"

#include <algorithm>
#include <cmath>

#include "core/color/value_map.h"
#include "core/common/error.h"

namespace sepal::app {

BiaxialPlot biaxialOf(const Dataset& data, const std::string& x, const std::string& y,
                      const CompensationStep& compensation) {
    if (data.tables.empty()) throw InputError("open a file first");
    BiaxialPlot plot;
    plot.axes = gateAxes(data.tables.front(), x, y, compensation);
    plot.values.assign(2 * data.events(), NAN);
    for (size_t s = 0; s < data.samples.size() && s < data.tables.size(); ++s) {
        const Matrix v = plot.axes.apply(data.tables[s]);
        std::copy_n(v.values.begin(), std::min(v.values.size(), 2 * data.samples[s].count),
                    plot.values.begin() + long(2 * data.samples[s].first));
    }
    const size_t n = data.events();
    for (size_t a = 0; a < 2; ++a) {
        const auto range = color::percentileRange(plot.values.data() + a, n, 2, 0.1, 99.9);
        float lo = std::isfinite(range.lo) ? range.lo : 0.0f;
        float hi = std::isfinite(range.hi) ? range.hi : 1.0f;
        if (hi <= lo) hi = lo + 1.0f;
        const float margin = 0.05f * (hi - lo);
        plot.low[a] = lo - margin;
        plot.high[a] = hi + margin;
    }
    return plot;
}

std::vector<uint8_t> biaxialPicture(const BiaxialPlot& plot, int width, int height,
                                    BiaxialColour colour, const Populations& populations,
                                    const Gating& gating) {
    const size_t w = size_t(std::max(1, width)), h = size_t(std::max(1, height));
    std::vector<uint8_t> rgba(w * h * 4, 0);
    for (size_t p = 0; p < w * h; ++p) rgba[4 * p + 3] = 255;  // an opaque black ground
    const size_t n = plot.values.size() / 2;
    // The pixel of each cell (or none off the plot).
    const auto pixel = [&](size_t i) -> long {
        const float fx = (plot.values[2 * i] - plot.low[0]) / (plot.high[0] - plot.low[0]);
        const float fy = (plot.values[2 * i + 1] - plot.low[1]) / (plot.high[1] - plot.low[1]);
        if (!(fx >= 0 && fx < 1 && fy >= 0 && fy < 1)) return -1;
        const size_t px = size_t(fx * float(w)), py = h - 1 - size_t(fy * float(h));
        return long(py * w + px);
    };
    if (colour == BiaxialColour::Population) {
        for (size_t i = 0; i < n; ++i) {
            const long p = pixel(i);
            if (p < 0) continue;
            const uint8_t m = i < populations.membership.size() ? populations.membership[i] : 0;
            std::array<uint8_t, 3> c{90, 90, 90};
            if (!gating.contains(i))
                c = {45, 45, 45};
            else if (m > 0 && m <= populations.groups.size())
                c = populations.groups[m - 1].colour;
            std::copy(c.begin(), c.end(), rgba.begin() + 4 * p);
        }
        return rgba;
    }
    std::vector<uint32_t> inside(w * h, 0), outside(w * h, 0);
    for (size_t i = 0; i < n; ++i) {
        const long p = pixel(i);
        if (p >= 0) ++(gating.contains(i) ? inside : outside)[size_t(p)];
    }
    const float top = std::log1p(float(*std::max_element(inside.begin(), inside.end())));
    for (size_t p = 0; p < w * h; ++p) {
        std::array<uint8_t, 3> c{0, 0, 0};
        if (inside[p] > 0)
            c = colourMap("viridis", 0.15f + 0.85f * std::log1p(float(inside[p])) / top);
        else if (outside[p] > 0)
            c = {70, 70, 70};
        std::copy(c.begin(), c.end(), rgba.begin() + long(4 * p));
    }
    return rgba;
}

double shareInside(const BiaxialPlot& plot, const std::vector<float>& polygon) {
    const size_t n = plot.values.size() / 2;
    size_t in = 0;
    for (size_t i = 0; i < n; ++i)
        in += insidePolygon(polygon, plot.values[2 * i], plot.values[2 * i + 1]) ? 1 : 0;
    return n ? double(in) / double(n) : 0.0;
}

}  // namespace sepal::app
