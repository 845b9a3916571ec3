#include "core/io/points_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "core/common/error.h"

namespace sepal::io {
namespace {

// Line and column (1-based) of a byte offset, for messages a user can act on.
std::string where(const std::string& text, size_t offset) {
    offset = std::min(offset, text.size());
    const size_t line =
        1 + static_cast<size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
    const size_t lineStart = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    const size_t column = offset - (lineStart == std::string::npos ? 0 : lineStart + 1) + 1;
    return "byte " + std::to_string(offset) + " (line " + std::to_string(line) + ", column " +
           std::to_string(column) + ")";
}

float number(const nlohmann::json& v, const std::string& source, size_t point, size_t coord) {
    if (!v.is_number())
        throw InputError(source + ": point " + std::to_string(point) + ", coordinate " +
                         std::to_string(coord) + " is " + std::string(v.type_name()) +
                         ", not a number; every coordinate must be a JSON number");
    const double x = v.get<double>();
    if (!(std::abs(x) <= std::numeric_limits<float>::max()))
        throw InputError(source + ": point " + std::to_string(point) + ", coordinate " +
                         std::to_string(coord) + " is " + v.dump() +
                         ", beyond the float32 range Sepal stores; rescale the data");
    return static_cast<float>(x);
}

std::vector<std::string> defaultNames(size_t d) {
    if (d == 2) return {"x", "y"};
    if (d == 3) return {"x", "y", "z"};
    std::vector<std::string> names;
    for (size_t j = 0; j < d; ++j) names.push_back("dim" + std::to_string(j + 1));
    return names;
}

// Which stored column becomes x, y and z.
std::array<size_t, 3> axisPermutation(const Matrix& m, const std::string& order,
                                      const std::string& source, std::string& note) {
    std::array<size_t, 3> stored = {0, 1, 2};
    if (order == "file" || order == "xyz") return stored;
    if (order == "auto") {
        // Spread = standard deviation per stored column; the largest becomes x.
        std::array<double, 3> sd{};
        for (size_t j = 0; j < 3; ++j) {
            double mean = 0, sq = 0;
            for (size_t i = 0; i < m.rows; ++i) mean += m.at(i, j);
            mean /= std::max<size_t>(m.rows, 1);
            for (size_t i = 0; i < m.rows; ++i) sq += (m.at(i, j) - mean) * (m.at(i, j) - mean);
            sd[j] = std::sqrt(sq / std::max<size_t>(m.rows, 1));
        }
        std::stable_sort(stored.begin(), stored.end(),
                         [&](size_t a, size_t b) { return sd[a] > sd[b]; });
        if (stored != std::array<size_t, 3>{0, 1, 2}) {
            std::string file(3, '?');
            for (size_t axis = 0; axis < 3; ++axis) file[stored[axis]] = "xyz"[axis];
            note = "columns stored as (" + std::string{file[0]} + ", " + file[1] + ", " + file[2] +
                   ") by the decreasing-spread rule; read with axis order 'file' to keep them";
        }
        return stored;
    }
    std::string sorted = order;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != "xyz")
        throw InputError(source + ": axis order '" + order +
                         "' is not 'auto', 'file' or a permutation of xyz such as 'zxy'");
    // order[k] names the axis stored in column k.
    for (size_t k = 0; k < 3; ++k) stored[static_cast<size_t>(order[k] - 'x')] = k;
    return stored;
}

}  // namespace

Table parsePointsJson(const std::string& text, const std::string& source,
                      const PointsJsonOptions& options) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(source + ": not valid JSON at " +
                         where(text, e.byte == 0 ? 0 : e.byte - 1) + ": " + e.what() +
                         "; expected an array of points such as [[1, 2, 3], ...]");
    } catch (const nlohmann::json::exception& e) {
        // A number beyond double's range (out_of_range 406) has no byte position.
        throw InputError(source + ": not valid JSON: " + e.what() +
                         "; every value must be a finite number within float range");
    }
    if (!doc.is_array() || doc.empty())
        throw InputError(source +
                         ": expected a non-empty JSON array of points ([[x, y, z], ...] "
                         "or [{\"x\": .., \"y\": ..}, ...]), found " +
                         std::string(doc.is_array() ? "an empty array" : doc.type_name()));
    Table table;
    table.source = source;
    std::vector<std::string> names;
    const size_t n = doc.size();
    if (doc[0].is_object()) {
        for (const auto& [key, value] : doc[0].items()) names.push_back(key);
        table.values = Matrix(n, names.size());
        for (size_t i = 0; i < n; ++i) {
            if (!doc[i].is_object() || doc[i].size() != names.size())
                throw InputError(source + ": point " + std::to_string(i) +
                                 " does not have the same keys as point 0 (" +
                                 std::to_string(names.size()) +
                                 " keys); every point needs them all");
            for (size_t j = 0; j < names.size(); ++j) {
                const auto it = doc[i].find(names[j]);
                if (it == doc[i].end())
                    throw InputError(source + ": point " + std::to_string(i) + " lacks key '" +
                                     names[j] + "'");
                table.values.at(i, j) = number(*it, source, i, j);
            }
        }
    } else if (doc[0].is_array()) {
        const size_t d = doc[0].size();
        if (d == 0) throw InputError(source + ": point 0 has no coordinates");
        table.values = Matrix(n, d);
        for (size_t i = 0; i < n; ++i) {
            if (!doc[i].is_array() || doc[i].size() != d)
                throw InputError(source + ": point " + std::to_string(i) + " has " +
                                 (doc[i].is_array() ? std::to_string(doc[i].size()) + " coordinates"
                                                    : std::string("no array")) +
                                 ", point 0 has " + std::to_string(d) +
                                 "; every point needs the same number");
            for (size_t j = 0; j < d; ++j) table.values.at(i, j) = number(doc[i][j], source, i, j);
        }
        names = defaultNames(d);
        if (d == 3) {
            std::string note;
            const auto perm = axisPermutation(table.values, options.axisOrder, source, note);
            if (perm != std::array<size_t, 3>{0, 1, 2}) {
                Matrix reordered(n, 3);
                for (size_t i = 0; i < n; ++i)
                    for (size_t axis = 0; axis < 3; ++axis)
                        reordered.at(i, axis) = table.values.at(i, perm[axis]);
                table.values = std::move(reordered);
            }
            if (!note.empty()) table.warnings.push_back(note);
        }
    } else {
        throw InputError(source + ": point 0 is " + std::string(doc[0].type_name()) +
                         "; expected an array of numbers or an object of named numbers");
    }
    for (const auto& name : names) table.channels.push_back(Channel{name, "", 0.0, 32});
    return table;
}

Table readPointsJson(const std::string& path, const PointsJsonOptions& options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open for reading; check the path and permissions");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return parsePointsJson(buffer.str(), path, options);
}

}  // namespace sepal::io
