#include "app/colouring.h"

#include <algorithm>
#include <cmath>

#include "core/color/colormap.h"
#include "core/color/palette.h"
#include "core/color/value_map.h"
#include "core/raster/density.h"

namespace sepal::app {

const std::vector<std::string>& colourMapNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (auto m : color::allColormaps()) n.push_back(color::colormapName(m));
        return n;
    }();
    return names;
}

std::array<uint8_t, 3> colourMap(const std::string& map, float t) {
    auto c = color::sampleColormap(color::colormapByName(map).value_or(color::Colormap::Viridis),
                                   std::isfinite(t) ? std::clamp(t, 0.0f, 1.0f) : 0.0f);
    return {c.r, c.g, c.b};
}

std::array<uint8_t, 3> paletteColour(size_t i) {
    auto c = color::paletteColor(i);
    return {c.r, c.g, c.b};
}

namespace {
void put(std::vector<uint8_t>& rgba, size_t i, std::array<uint8_t, 3> c, uint8_t a = 255) {
    rgba[4 * i] = c[0], rgba[4 * i + 1] = c[1], rgba[4 * i + 2] = c[2], rgba[4 * i + 3] = a;
}
}  // namespace

ColourKey computeColours(const Dataset& data, const ColourSettings& settings,
                         const ColourInputs& in, std::vector<uint8_t>& rgba) {
    const Populations& populations = in.populations;
    const Gating& gating = in.gating;
    const SampleMetadata& metadata = in.metadata;
    const std::vector<float>& xy = in.xy;
    size_t n = data.events();
    rgba.assign(n * 4, 255);
    ColourKey key;
    switch (settings.mode) {
        case ColourMode::Marker: {
            // An embedded column, or a state marker kept beside them (pSTAT5, IFNg...).
            const bool state = settings.stateColumn >= 0 && in.stateValues && in.stateMarkers &&
                               size_t(settings.stateColumn) < in.stateValues->cols &&
                               in.stateValues->rows == n;
            const Matrix& values = state ? *in.stateValues : data.points;
            const size_t d = values.cols;
            if (d == 0) break;
            const size_t c =
                size_t(std::clamp(state ? settings.stateColumn : settings.column, 0, int(d) - 1));
            auto range = color::percentileRange(values.data() + c, n, d, settings.lowPercentile,
                                                settings.highPercentile);
            float lo = range.lo, hi = range.hi;
            for (size_t i = 0; i < n; ++i)
                put(rgba, i, colourMap(settings.map, (values.at(i, c) - lo) / (hi - lo)));
            key = {true, state ? (*in.stateMarkers)[c] : data.label(c), lo, hi, settings.map, false,
                   {}};
            break;
        }
        case ColourMode::Sample:
            for (size_t i = 0; i < n; ++i) put(rgba, i, paletteColour(data.sampleOf[i]));
            key.title = "sample";
            for (size_t s = 0; s < data.samples.size(); ++s)
                key.legend.push_back({data.samples[s].name, paletteColour(s)});
            break;
        case ColourMode::Label: {
            if (data.tables.empty() || data.tables.front().labels.empty()) {
                for (size_t i = 0; i < n; ++i) put(rgba, i, {200, 200, 200});
                key.title = "no label column";
                break;
            }
            const auto& first = data.tables.front();
            size_t lc = size_t(std::clamp(settings.labelColumn, 0, int(first.labels.size()) - 1));
            key.title = first.labels[lc].name;
            const auto& cats = first.labels[lc].categories;
            for (size_t c = 0; c < cats.size(); ++c)
                key.legend.push_back({cats[c], paletteColour(c)});
            for (const auto& s : data.samples) {
                const io::Table* t = nullptr;
                for (const auto& tt : data.tables)
                    if (tt.source == s.path) t = &tt;
                const io::LabelColumn* col = nullptr;
                if (t)
                    for (const auto& l : t->labels)
                        if (l.name == key.title) col = &l;
                for (size_t e = 0; e < s.count; ++e) {
                    int code = col && e < col->codes.size() ? col->codes[e] : -1;
                    // Categories of later samples are matched to the first sample's by name.
                    int shown = -1;
                    if (code >= 0) {
                        const auto& name = col->categories[size_t(code)];
                        auto it = std::find(cats.begin(), cats.end(), name);
                        if (it != cats.end()) shown = int(it - cats.begin());
                    }
                    put(rgba, s.first + e,
                        shown >= 0 ? paletteColour(size_t(shown))
                                   : std::array<uint8_t, 3>{110, 110, 110});
                }
            }
            break;
        }
        case ColourMode::Density: {
            // Log counts on a grid over the embedding, as sepal-cli's pictures colour them.
            if (xy.size() < 2 * n || n == 0) break;
            float top = 0.0f;
            const auto density = raster::binnedLogDensity(xy.data(), n, gating.inside, top);
            for (size_t i = 0; i < n; ++i)
                put(rgba, i, colourMap(settings.map, top > 0.0f ? density[i] / top : 0.0f));
            key = {true, "density (log cells per bin)", 0, top, settings.map, false, {}};
            break;
        }
        case ColourMode::Group: {
            // Each sample in the colour of its value of a metadata column (condition, patient).
            if (metadata.columns.empty()) {
                for (size_t i = 0; i < n; ++i) put(rgba, i, {200, 200, 200});
                key.title = "no sample metadata";
                break;
            }
            const size_t column =
                size_t(std::clamp(settings.groupColumn, 0, int(metadata.columns.size()) - 1));
            std::vector<std::string> paths;
            for (const auto& s : data.samples) paths.push_back(s.path);
            // The levels in sorted order, the unlisted last: a level's colour is its place, as
            // the Compare window's and the exported box plots colour the conditions.
            auto values = metadata.valuesOver(paths, column);
            std::sort(values.begin(), values.end(), [](const std::string& a, const std::string& b) {
                return a.empty() != b.empty() ? b.empty() : a < b;
            });
            key.title = metadata.columns[column];
            for (size_t v = 0; v < values.size(); ++v)
                key.legend.push_back(
                    {values[v].empty() ? "(not listed)" : values[v], paletteColour(v)});
            for (const auto& s : data.samples) {
                const auto value = metadata.valueOf(s.path, column);
                const size_t v =
                    size_t(std::find(values.begin(), values.end(), value) - values.begin());
                for (size_t e = 0; e < s.count; ++e) put(rgba, s.first + e, paletteColour(v));
            }
            break;
        }
        case ColourMode::Neighbours: {
            // The scored cells by the share of their neighbours the picture kept, red where it
            // tears and blue where it holds (a fixed map: the warm end is the signal); the
            // others faint, for the picture's shape. The key runs from 0 kept (red) up to 1.
            const NeighbourScores& scores = in.neighbours;
            for (size_t i = 0; i < n; ++i) put(rgba, i, {150, 150, 150}, 25);
            for (size_t j = 0; j < scores.cells.size() && j < scores.kept.size(); ++j)
                if (scores.cells[j] < n)
                    put(rgba, scores.cells[j], colourMap("coolwarm", 1.0f - scores.kept[j]));
            key = {true,
                   scores.cells.empty() ? std::string("neighbours kept: scoring...")
                                        : "neighbours kept (of " + std::to_string(scores.k) + ", " +
                                              std::to_string(scores.cells.size()) + " cells)",
                   0,
                   1,
                   "coolwarm",
                   true,
                   {}};
            break;
        }
        case ColourMode::Change: {
            // Each cell by its population's log2 fold change, blue (fewer) through pale to red
            // (more), symmetric about no change; cells of no population or an untested one grey.
            const PopulationChange& change = in.change;
            std::vector<float> logFC(populations.groups.size() + 1, NAN);
            float extent = 0;
            for (size_t g = 0; g < populations.groups.size(); ++g)
                for (size_t c = 0; c < change.populations.size() && c < change.logFC.size(); ++c)
                    if (change.populations[c] == populations.groups[g].name) {
                        logFC[g + 1] = change.logFC[c];
                        if (std::isfinite(change.logFC[c]))
                            extent = std::max(extent, std::fabs(change.logFC[c]));
                    }
            extent = extent > 0 ? extent : 1;
            // A population chosen in the Compare window keeps its colour, the others greyed.
            size_t highlighted = 0;
            for (size_t g = 0; g < populations.groups.size() && !settings.highlight.empty(); ++g)
                if (populations.groups[g].name == settings.highlight) highlighted = g + 1;
            for (size_t i = 0; i < n; ++i) {
                const uint8_t m = i < populations.membership.size() ? populations.membership[i] : 0;
                const float v = m < logFC.size() ? logFC[m] : NAN;
                if (highlighted > 0 && m != highlighted)
                    put(rgba, i, {120, 120, 120}, 60);
                else if (std::isfinite(v))
                    put(rgba, i, colourMap("coolwarm", 0.5f + 0.5f * v / extent));
                else
                    put(rgba, i, {120, 120, 120}, 80);
            }
            key = {true,
                   change.title.empty() ? std::string("change: compare conditions first")
                                        : "log2 change: " + change.title,
                   -extent,
                   extent,
                   "coolwarm",
                   false,
                   {}};
            break;
        }
        case ColourMode::Population: {
            key.title = "population";
            // By name: a population since deleted or merged away greys nothing.
            size_t highlighted = 0;
            for (size_t g = 0; g < populations.groups.size() && !settings.highlight.empty(); ++g)
                if (populations.groups[g].name == settings.highlight) highlighted = g + 1;
            for (const auto& p : populations.groups) key.legend.push_back({p.name, p.colour});
            for (size_t i = 0; i < n; ++i) {
                uint8_t m = i < populations.membership.size() ? populations.membership[i] : 0;
                const bool greyed = highlighted > 0 && m != highlighted;
                if (m > 0 && m <= populations.groups.size() && !greyed)
                    put(rgba, i, populations.groups[m - 1].colour);
                else
                    put(rgba, i, {120, 120, 120}, greyed ? 60 : 110);
            }
            break;
        }
    }
    // Cells outside the gates are not drawn (alpha 0 is discarded by the point shader).
    if (!gating.inside.empty())
        for (size_t i = 0; i < n && i < gating.inside.size(); ++i)
            if (!gating.inside[i]) rgba[4 * i + 3] = 0;
    return key;
}

}  // namespace sepal::app
