#include "app/colouring.h"

#include <algorithm>
#include <cmath>

namespace sepal::app {

namespace {
struct Stop {
    float t;
    uint8_t r, g, b;
};

// Control points sampled from the published maps; linear interpolation in between.
const std::vector<Stop>& stops(const std::string& map) {
    static const std::vector<Stop> viridis = {{0.0f, 68, 1, 84},
                                              {0.25f, 59, 82, 139},
                                              {0.5f, 33, 145, 140},
                                              {0.75f, 94, 201, 98},
                                              {1.0f, 253, 231, 37}};
    static const std::vector<Stop> magma = {{0.0f, 0, 0, 4},
                                            {0.25f, 81, 18, 124},
                                            {0.5f, 183, 55, 121},
                                            {0.75f, 252, 137, 97},
                                            {1.0f, 252, 253, 191}};
    static const std::vector<Stop> turbo = {{0.0f, 48, 18, 59},   {0.2f, 65, 141, 254},
                                            {0.4f, 40, 235, 170}, {0.6f, 164, 252, 60},
                                            {0.8f, 251, 128, 34}, {1.0f, 122, 4, 3}};
    static const std::vector<Stop> grey = {{0.0f, 40, 40, 40}, {1.0f, 245, 245, 245}};
    if (map == "magma") return magma;
    if (map == "turbo") return turbo;
    if (map == "grey") return grey;
    return viridis;
}
}  // namespace

const std::vector<std::string>& colourMapNames() {
    static const std::vector<std::string> names = {"viridis", "magma", "turbo", "grey"};
    return names;
}

std::array<uint8_t, 3> colourMap(const std::string& map, float t) {
    const auto& s = stops(map);
    t = std::isfinite(t) ? std::clamp(t, 0.0f, 1.0f) : 0.0f;
    for (size_t i = 1; i < s.size(); ++i) {
        if (t <= s[i].t) {
            float f = (t - s[i - 1].t) / (s[i].t - s[i - 1].t);
            auto mix = [f](uint8_t a, uint8_t b) { return uint8_t(std::lround(a + f * (b - a))); };
            return {mix(s[i - 1].r, s[i].r), mix(s[i - 1].g, s[i].g), mix(s[i - 1].b, s[i].b)};
        }
    }
    return {s.back().r, s.back().g, s.back().b};
}

std::array<uint8_t, 3> paletteColour(size_t i) {
    // A qualitative palette with distinct hues that read on a dark background.
    static const std::array<uint8_t, 3> kPalette[] = {
        {31, 119, 180},  {255, 127, 14},  {44, 160, 44},   {214, 39, 40},
        {148, 103, 189}, {140, 86, 75},   {227, 119, 194}, {188, 189, 34},
        {23, 190, 207},  {174, 199, 232}, {255, 187, 120}, {152, 223, 138}};
    return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

namespace {
float percentile(std::vector<float> v, float p) {
    if (v.empty()) return 0;
    size_t k = size_t(std::clamp(p / 100.0f, 0.0f, 1.0f) * float(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return v[k];
}

void put(std::vector<uint8_t>& rgba, size_t i, std::array<uint8_t, 3> c, uint8_t a = 255) {
    rgba[4 * i] = c[0], rgba[4 * i + 1] = c[1], rgba[4 * i + 2] = c[2], rgba[4 * i + 3] = a;
}
}  // namespace

ColourKey computeColours(const Dataset& data, const ColourSettings& settings,
                         const Populations& populations, const std::vector<float>& xy,
                         std::vector<uint8_t>& rgba) {
    size_t n = data.events();
    rgba.assign(n * 4, 255);
    ColourKey key;
    switch (settings.mode) {
        case ColourMode::Marker: {
            size_t d = data.points.cols;
            if (d == 0) break;
            size_t c = size_t(std::clamp(settings.column, 0, int(d) - 1));
            // Percentiles from a strided subsample keep this fast on millions of cells.
            std::vector<float> sample;
            size_t stride = std::max<size_t>(1, n / 200000);
            for (size_t i = 0; i < n; i += stride) sample.push_back(data.points.at(i, c));
            float lo = percentile(sample, settings.lowPercentile);
            float hi = percentile(sample, settings.highPercentile);
            if (hi <= lo) hi = lo + 1e-6f;
            for (size_t i = 0; i < n; ++i)
                put(rgba, i, colourMap(settings.map, (data.points.at(i, c) - lo) / (hi - lo)));
            key = {true, data.columns[c], lo, hi, settings.map, {}};
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
            // Counts on a 256 x 256 grid over the embedding; colour by log count.
            constexpr int kGrid = 256;
            if (xy.size() < 2 * n || n == 0) break;
            float minX = xy[0], maxX = xy[0], minY = xy[1], maxY = xy[1];
            for (size_t i = 0; i < n; ++i) {
                minX = std::min(minX, xy[2 * i]), maxX = std::max(maxX, xy[2 * i]);
                minY = std::min(minY, xy[2 * i + 1]), maxY = std::max(maxY, xy[2 * i + 1]);
            }
            float sx = kGrid / std::max(maxX - minX, 1e-6f),
                  sy = kGrid / std::max(maxY - minY, 1e-6f);
            std::vector<uint32_t> counts(kGrid * kGrid, 0);
            std::vector<uint32_t> cell(n);
            for (size_t i = 0; i < n; ++i) {
                int gx = std::clamp(int((xy[2 * i] - minX) * sx), 0, kGrid - 1);
                int gy = std::clamp(int((xy[2 * i + 1] - minY) * sy), 0, kGrid - 1);
                cell[i] = uint32_t(gy * kGrid + gx);
                ++counts[cell[i]];
            }
            float top = std::log1p(float(*std::max_element(counts.begin(), counts.end())));
            for (size_t i = 0; i < n; ++i)
                put(rgba, i, colourMap(settings.map, std::log1p(float(counts[cell[i]])) / top));
            key = {true, "density (log cells per bin)", 0, top, settings.map, {}};
            break;
        }
        case ColourMode::Population:
            key.title = "population";
            for (const auto& p : populations.groups) key.legend.push_back({p.name, p.colour});
            for (size_t i = 0; i < n; ++i) {
                uint8_t m = i < populations.membership.size() ? populations.membership[i] : 0;
                if (m > 0 && m <= populations.groups.size())
                    put(rgba, i, populations.groups[m - 1].colour);
                else
                    put(rgba, i, {120, 120, 120}, 110);
            }
            break;
    }
    return key;
}

}  // namespace sepal::app
