#include "core/cluster/heatmap.h"

#include <algorithm>
#include <cmath>

#include "core/color/value_map.h"
#include "core/common/error.h"
#include "core/common/median.h"
#include "core/raster/annotate.h"
#include "core/raster/text.h"

namespace sepal {

Heatmap heatmapOf(const Matrix& values, const std::vector<int32_t>& codes,
                  const std::vector<std::string>& rows, const std::vector<std::string>& columns) {
    if (codes.size() != values.rows || values.cols != columns.size())
        throw InputError("heatmap: " + std::to_string(codes.size()) + " codes for " +
                         std::to_string(values.rows) + " x " + std::to_string(values.cols) +
                         " values and " + std::to_string(columns.size()) + " markers");
    const size_t k = rows.size(), d = columns.size();
    Heatmap h{rows, columns, std::vector<float>(k * d, NAN), std::vector<float>(k * d, NAN),
              std::vector<size_t>(k, 0)};
    std::vector<std::vector<size_t>> members(k);
    for (size_t i = 0; i < codes.size(); ++i)
        if (codes[i] >= 0 && size_t(codes[i]) < k) members[size_t(codes[i])].push_back(i);
    std::vector<float> column;
    for (size_t t = 0; t < d; ++t) {
        const color::ValueRange range =
            color::percentileRange(values.data() + t, values.rows, values.cols, 1.0, 99.0);
        for (size_t r = 0; r < k; ++r) {
            column.clear();
            for (size_t i : members[r])
                if (std::isfinite(values.at(i, t))) column.push_back(values.at(i, t));
            const float m = medianOf(column);
            h.medians[r * d + t] = m;
            h.scaled[r * d + t] = color::normalize(m, range);
        }
    }
    for (size_t r = 0; r < k; ++r) h.cells[r] = members[r].size();
    return h;
}

raster::Image renderHeatmap(const Heatmap& h, color::Colormap map) {
    const size_t k = h.rows.size(), d = h.columns.size();
    const int scale = 2, line = raster::textHeight(scale), pad = 10;
    const color::Rgba8 background{16, 17, 20, 255}, ink{225, 228, 232, 255};
    int nameWidth = 0, countWidth = 0, columnWidth = 3 * line;
    for (const auto& r : h.rows) nameWidth = std::max(nameWidth, raster::textWidth(r, scale));
    for (size_t c : h.cells)
        countWidth = std::max(countWidth, raster::textWidth(std::to_string(c), scale));
    int labelWidth = 0;
    for (const auto& c : h.columns) labelWidth = std::max(labelWidth, raster::textWidth(c, scale));
    columnWidth = std::max(columnWidth, std::min(labelWidth + 6, 6 * line));
    // Marker names that do not fit their column take two staggered rows above the cells.
    const bool stagger = labelWidth + 6 > columnWidth;
    const int header = (stagger ? 2 : 1) * (line + 4) + pad, cellHeight = line + 8;
    const int left = pad + nameWidth + pad, top = pad + header;
    const int gridWidth = int(d) * columnWidth, gridHeight = int(k) * cellHeight;
    const int barLeft = left + gridWidth + pad + countWidth + 2 * pad;
    const int width = barLeft + 160, height = std::max(top + gridHeight + pad, top + 220);
    raster::Image image(width, height, background);
    const auto table = color::colormapTable(map);
    for (size_t t = 0; t < d; ++t) {
        const int x = left + int(t) * columnWidth;
        const int y = pad + (stagger && t % 2 ? line + 4 : 0);
        const int w = raster::textWidth(h.columns[t], scale);
        raster::drawText(image, x + (columnWidth - std::min(w, columnWidth)) / 2, y, h.columns[t],
                         ink, scale);
    }
    for (size_t r = 0; r < k; ++r) {
        const int y = top + int(r) * cellHeight;
        raster::drawText(image, pad + nameWidth - raster::textWidth(h.rows[r], scale), y + 4,
                         h.rows[r], ink, scale);
        for (size_t t = 0; t < d; ++t) {
            const float v = h.scaled[r * d + t];
            const color::Rgba8 c = std::isfinite(v) ? table[size_t(std::lround(v * 255.0f))]
                                                    : color::Rgba8{70, 70, 70, 255};
            const int x = left + int(t) * columnWidth;
            image.fillRect(x + 1, y + 1, x + columnWidth - 1, y + cellHeight - 1, c);
        }
        raster::drawText(image, left + gridWidth + pad, y + 4, std::to_string(h.cells[r]), ink,
                         scale);
    }
    raster::drawColorBar(image, barLeft, top, 20, std::max(120, gridHeight - 3 * line), map,
                         color::ValueRange{0.0f, 1.0f}, "scaled median", ink, scale);
    return image;
}

}  // namespace sepal
