#include "core/cluster/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/cluster/dendrogram.h"
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

namespace {

/// Draws a dendrogram: leaf i of `tree` at position leafAt(order index), merges by height
/// between `base` (leaves) and `base -+ depth` (the root). Vertical: the tree grows leftwards
/// from x = base (rows); horizontal: upwards from y = base (columns).
void drawTree(raster::Image& image, const Dendrogram& tree, const std::vector<int>& leafAt,
              int base, int depth, bool rows, color::Rgba8 ink) {
    if (tree.merges.empty()) return;
    const double top = std::max(tree.merges.back().height, 1e-9);
    std::vector<int> along(tree.leaves + tree.merges.size()), across(along.size(), base);
    for (size_t pos = 0; pos < tree.order.size(); ++pos) along[tree.order[pos]] = leafAt[pos];
    const auto line = [&](int a0, int a1, int c0, int c1) {
        // Along/across to x/y: rows run along y, columns along x.
        if (rows)
            image.fillRect(std::min(c0, c1), std::min(a0, a1), std::max(c0, c1) + 2,
                           std::max(a0, a1) + 2, ink);
        else
            image.fillRect(std::min(a0, a1), std::min(c0, c1), std::max(a0, a1) + 2,
                           std::max(c0, c1) + 2, ink);
    };
    for (size_t m = 0; m < tree.merges.size(); ++m) {
        const DendrogramMerge& merge = tree.merges[m];
        const size_t node = tree.leaves + m;
        const int at = base - int(std::lround(double(depth) * merge.height / top));
        along[node] = (along[merge.left] + along[merge.right]) / 2;
        across[node] = at;
        line(along[merge.left], along[merge.right], at, at);
        line(along[merge.left], along[merge.left], at, across[merge.left]);
        line(along[merge.right], along[merge.right], at, across[merge.right]);
    }
}

/// `text` drawn reading upwards with its end at (x, bottom): a column label.
void drawUpwards(raster::Image& image, int x, int bottom, const std::string& text, color::Rgba8 ink,
                 color::Rgba8 background, int scale) {
    const int w = raster::textWidth(text, scale), h = raster::textHeight(scale) + 4;
    raster::Image strip(w, h, background);
    raster::drawText(strip, 0, 1, text, ink, scale);
    for (int sy = 0; sy < h; ++sy)
        for (int sx = 0; sx < w; ++sx) image.set(x + sy, bottom - sx, strip.at(sx, sy));
}

std::string percentText(size_t cells, size_t total) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", total ? 100.0 * double(cells) / double(total) : 0.0);
    return buf;
}

}  // namespace

HeatmapOrder heatmapOrder(const Heatmap& h) {
    const size_t k = h.rows.size(), d = h.columns.size();
    const auto classOf = [&](size_t t) {
        return h.classes.size() == d ? h.classes[t] : MarkerClass::Type;
    };
    HeatmapOrder out;
    // Rows on their type markers (every column when none is one).
    std::vector<size_t> typeColumns;
    for (size_t t = 0; t < d; ++t)
        if (classOf(t) == MarkerClass::Type) typeColumns.push_back(t);
    if (typeColumns.empty())
        for (size_t t = 0; t < d; ++t) typeColumns.push_back(t);
    std::vector<float> rowVectors(k * typeColumns.size());
    for (size_t r = 0; r < k; ++r)
        for (size_t j = 0; j < typeColumns.size(); ++j)
            rowVectors[r * typeColumns.size() + j] = h.scaled[r * d + typeColumns[j]];
    out.rowTree = clusterItems(rowVectors, k, typeColumns.size());
    for (MarkerClass c : {MarkerClass::Type, MarkerClass::State, MarkerClass::None}) {
        std::vector<size_t> members;
        for (size_t t = 0; t < d; ++t)
            if (classOf(t) == c) members.push_back(t);
        if (members.empty()) continue;
        // Each column's scaled medians over the populations.
        std::vector<float> vectors(members.size() * k);
        for (size_t m = 0; m < members.size(); ++m)
            for (size_t r = 0; r < k; ++r) vectors[m * k + r] = h.scaled[r * d + members[m]];
        Dendrogram tree = clusterItems(vectors, members.size(), k);
        out.blockStart.push_back(out.columns.size());
        for (size_t leaf : tree.order) {
            out.columns.push_back(members[leaf]);
            out.block.push_back(c);
        }
        out.columnTrees.push_back(std::move(tree));
    }
    return out;
}

raster::Image renderHeatmap(const Heatmap& h, color::Colormap map, bool light) {
    const size_t k = h.rows.size(), d = h.columns.size();
    const int scale = 2, line = raster::textHeight(scale), pad = 16, gap = 14;
    const int cellWidth = line + 12, cellHeight = line + 10;
    const color::Rgba8 background =
        light ? color::Rgba8{255, 255, 255, 255} : color::Rgba8{16, 17, 20, 255};
    const color::Rgba8 ink =
        light ? color::Rgba8{20, 20, 24, 255} : color::Rgba8{225, 228, 232, 255};
    const color::Rgba8 faint =
        light ? color::Rgba8{110, 110, 118, 255} : color::Rgba8{150, 154, 160, 255};
    const HeatmapOrder order = heatmapOrder(h);
    const Dendrogram& rowTree = order.rowTree;
    const bool blocks = order.columnTrees.size() > 1;

    size_t total = 0;
    for (size_t c : h.cells) total += c;
    int nameWidth = 0, countWidth = 0, labelHeight = 0;
    for (const auto& r : h.rows) nameWidth = std::max(nameWidth, raster::textWidth(r, scale));
    for (size_t r = 0; r < k; ++r)
        countWidth = std::max(countWidth, raster::textWidth(std::to_string(h.cells[r]) + "  " +
                                                                percentText(h.cells[r], total),
                                                            scale));
    for (const auto& c : h.columns)
        labelHeight = std::max(labelHeight, raster::textWidth(c, scale));
    const int rowTreeWidth = k > 1 ? 140 : 0, columnTreeHeight = d > 1 ? 90 : 0;
    const int caption = blocks ? line + 10 : 0;
    const int left = pad + rowTreeWidth + pad + nameWidth + pad;
    const int top = pad + caption + columnTreeHeight + pad + labelHeight + 8;
    std::vector<int> columnX(order.columns.size());
    for (size_t i = 0, x = size_t(left); i < order.columns.size(); ++i) {
        if (i > 0 && order.block[i] != order.block[i - 1]) x += gap;
        columnX[i] = int(x);
        x += size_t(cellWidth);
    }
    const int gridRight = columnX.empty() ? left : columnX.back() + cellWidth;
    const int gridHeight = int(k) * cellHeight;
    const int barLeft = gridRight + pad + countWidth + 2 * pad;
    const int width = barLeft + 200;
    const int height =
        std::max(top + gridHeight + pad, top + raster::colorBarHeight(180, scale) + pad);
    raster::Image image(width, height, background);
    const auto table = color::colormapTable(map);

    // Block captions, the columns' trees (one a block), their labels reading upwards.
    for (size_t b = 0; b < order.columnTrees.size(); ++b) {
        const size_t first = order.blockStart[b];
        const size_t count = order.columnTrees[b].order.size();
        if (blocks) {
            const MarkerClass c = order.block[first];
            const std::string title = c == MarkerClass::Type    ? "type markers"
                                      : c == MarkerClass::State ? "state markers"
                                                                : "other channels";
            raster::drawText(image, columnX[first], pad, title, faint, scale);
        }
        std::vector<int> leafX;
        for (size_t i = 0; i < count; ++i) leafX.push_back(columnX[first + i] + cellWidth / 2 - 1);
        drawTree(image, order.columnTrees[b], leafX, pad + caption + columnTreeHeight,
                 columnTreeHeight - 4, false, faint);
    }
    for (size_t i = 0; i < order.columns.size(); ++i)
        drawUpwards(image, columnX[i] + (cellWidth - line - 4) / 2, top - 8,
                    h.columns[order.columns[i]], ink, background, scale);
    // Rows: the tree, the names, the cells, the counts and percentages.
    std::vector<int> rowY(k);
    for (size_t pos = 0; pos < k; ++pos)
        rowY[pos] = top + int(pos) * cellHeight + cellHeight / 2 - 1;
    drawTree(image, rowTree, rowY, pad + rowTreeWidth, rowTreeWidth - 4, true, faint);
    for (size_t pos = 0; pos < k; ++pos) {
        const size_t r = rowTree.order[pos];
        const int y = top + int(pos) * cellHeight;
        raster::drawText(image, left - pad - raster::textWidth(h.rows[r], scale),
                         y + (cellHeight - line) / 2, h.rows[r], ink, scale);
        for (size_t i = 0; i < order.columns.size(); ++i) {
            const float v = h.scaled[r * d + order.columns[i]];
            const color::Rgba8 c = std::isfinite(v) ? table[size_t(std::lround(v * 255.0f))]
                                                    : color::Rgba8{120, 120, 120, 255};
            image.fillRect(columnX[i] + 1, y + 1, columnX[i] + cellWidth - 1, y + cellHeight - 1,
                           c);
        }
        raster::drawText(image, gridRight + pad, y + (cellHeight - line) / 2,
                         std::to_string(h.cells[r]) + "  " + percentText(h.cells[r], total), ink,
                         scale);
    }
    raster::drawColorBar(image, barLeft, top, 24, std::max(180, gridHeight - 3 * line), map,
                         color::ValueRange{0.0f, 1.0f}, "scaled median", ink, scale);
    return image;
}

}  // namespace sepal
