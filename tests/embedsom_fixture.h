#pragma once
// Loads one EmbedSOM reference case of ../shared/data/embedsom (embedsom.md, "Fixtures").

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/embedsom/projector.h"
#include "core/model/landmark_model.h"

namespace sepal::test {

/// One fixture case: inputs, parameters and the reference output Y (n x 2).
struct EmbedsomCase {
    std::string name;
    size_t n = 0, d = 0, g = 0;
    std::vector<float> x, y;
    LandmarkModel model;
    EmbedParams params;
};

/// Raw little-endian float32 values of a file, `count` of them (throws when the size differs).
inline std::vector<float> readF32(const std::filesystem::path& path, size_t count) {
    std::ifstream in(path, std::ios::binary);
    std::vector<float> v(count);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * 4));
    if (!in || in.peek() != EOF) throw std::runtime_error("unexpected size: " + path.string());
    return v;
}

/// Reads the case in directory `dir`.
inline EmbedsomCase loadEmbedsomCase(const std::filesystem::path& dir) {
    EmbedsomCase c;
    c.name = dir.filename().string();
    std::ifstream pj(dir / "params.json");
    const auto j = nlohmann::json::parse(pj);
    c.n = j.at("n"), c.d = j.at("d"), c.g = j.at("g");
    c.params.k = j.at("k");
    c.params.smooth = j.at("smooth").get<float>();
    c.params.adjust = j.at("adjust").get<float>();
    c.x = readF32(dir / "X.f32", c.n * c.d);
    c.y = readF32(dir / "Y.f32", c.n * 2);
    c.model.resize(c.g, c.d);
    c.model.high = readF32(dir / "L.f32", c.g * c.d);
    c.model.low = readF32(dir / "l.f32", c.g * 2);
    c.model.touch();
    return c;
}

/// The case directories under `root`, sorted by name.
inline std::vector<std::filesystem::path> embedsomCaseDirs(const std::filesystem::path& root) {
    std::vector<std::filesystem::path> dirs;
    if (!std::filesystem::is_directory(root)) return dirs;
    for (const auto& e : std::filesystem::directory_iterator(root))
        if (std::filesystem::exists(e.path() / "params.json")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

/// Errors of `got` against the reference, relative to the extent of the 2D landmarks.
struct FixtureError {
    double max = 0.0, median = 0.0;  ///< max and median point distance / extent
    size_t worst = 0;                ///< index of the worst point
};

/// Point distances between `got` and `want` (n x 2) over extent = max axis range of `low`.
inline FixtureError fixtureError(const std::vector<float>& got, const std::vector<float>& want,
                                 const std::vector<float>& low) {
    double ext = 0.0;
    for (int a = 0; a < 2; ++a) {
        float lo = low[a], hi = low[a];
        for (size_t i = a; i < low.size(); i += 2)
            lo = std::min(lo, low[i]), hi = std::max(hi, low[i]);
        ext = std::max(ext, double(hi) - double(lo));
    }
    const size_t n = want.size() / 2;
    std::vector<double> e(n);
    FixtureError r;
    for (size_t i = 0; i < n; ++i) {
        const double dx = double(got[2 * i]) - want[2 * i],
                     dy = double(got[2 * i + 1]) - want[2 * i + 1];
        e[i] = std::sqrt(dx * dx + dy * dy) / ext;
        if (!(e[i] <= r.max)) r.max = e[i], r.worst = i;  // NaN counts as the worst
    }
    if (n == 0) return r;
    std::nth_element(e.begin(), e.begin() + n / 2, e.end());
    r.median = e[n / 2];
    return r;
}

}  // namespace sepal::test
