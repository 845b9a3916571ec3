#include "core/model/population_regions.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"
#include "core/gate/gate.h"

namespace sepal {

PopulationRegions regionsFromLandmarks(const std::vector<int32_t>& populationOfLandmark,
                                       size_t populations) {
    PopulationRegions regions;
    for (size_t p = 0; p < populations; ++p) regions.populationOfLabel.push_back(int32_t(p));
    regions.labelOfLandmark = populationOfLandmark;
    return regions;
}

std::vector<int32_t> labelCells(const PopulationRegions& regions,
                                const std::vector<int32_t>& labelOfCell, const float* xy) {
    std::vector<int32_t> label = labelOfCell;
    for (const RegionStroke& stroke : regions.strokes) {
        float minX = INFINITY, maxX = -INFINITY, minY = INFINITY, maxY = -INFINITY;
        for (size_t v = 0; v + 1 < stroke.polygon.size(); v += 2) {
            minX = std::fmin(minX, stroke.polygon[v]), maxX = std::fmax(maxX, stroke.polygon[v]);
            minY = std::fmin(minY, stroke.polygon[v + 1]);
            maxY = std::fmax(maxY, stroke.polygon[v + 1]);
        }
        for (size_t i = 0; i < label.size(); ++i) {
            const float x = xy[2 * i], y = xy[2 * i + 1];
            // The box test is only a shortcut: a point outside it is outside the polygon.
            if (!(x >= minX && x <= maxX && y >= minY && y <= maxY)) continue;
            if (!stroke.from.empty() &&
                std::find(stroke.from.begin(), stroke.from.end(), label[i]) == stroke.from.end())
                continue;
            if (insidePolygon(stroke.polygon, x, y)) label[i] = stroke.label;
        }
    }
    for (int32_t& l : label)
        l = l >= 0 && size_t(l) < regions.populationOfLabel.size()
                ? regions.populationOfLabel[size_t(l)]
                : -1;
    return label;
}

std::vector<int32_t> populationOfLandmarks(const PopulationRegions& regions) {
    std::vector<int32_t> out;
    for (int32_t l : regions.labelOfLandmark)
        out.push_back(l >= 0 && size_t(l) < regions.populationOfLabel.size()
                          ? regions.populationOfLabel[size_t(l)]
                          : -1);
    return out;
}

PopulationRegions withoutPopulation(PopulationRegions regions, int32_t removed) {
    for (int32_t& p : regions.populationOfLabel) {
        if (p == removed)
            p = -1;
        else if (p > removed)
            --p;
    }
    return regions;
}

void validateRegions(const PopulationRegions& regions, size_t g, size_t k,
                     const std::string& source) {
    const auto fail = [&](const std::string& what) {
        throw InputError(source + ": population regions: " + what);
    };
    const size_t labels = regions.populationOfLabel.size();
    for (int32_t p : regions.populationOfLabel)
        if (p < -1 || (p >= 0 && size_t(p) >= k))
            fail("a label ends in population " + std::to_string(p) + "; there are " +
                 std::to_string(k));
    if (regions.labelOfLandmark.size() != g)
        fail("\"landmarks\" holds " + std::to_string(regions.labelOfLandmark.size()) +
             " labels; the model has " + std::to_string(g) + " landmarks");
    const auto isLabel = [&](int32_t l) { return l >= 0 && size_t(l) < labels; };
    for (int32_t l : regions.labelOfLandmark)
        if (l != -1 && !isLabel(l)) fail("a landmark holds label " + std::to_string(l));
    for (size_t s = 0; s < regions.strokes.size(); ++s) {
        const RegionStroke& stroke = regions.strokes[s];
        const std::string which = "stroke " + std::to_string(s);
        if (!isLabel(stroke.label)) fail(which + " paints label " + std::to_string(stroke.label));
        for (int32_t l : stroke.from)
            if (!isLabel(l)) fail(which + " moves cells of label " + std::to_string(l));
        if (stroke.polygon.size() < 6 || stroke.polygon.size() % 2 != 0)
            fail(which + " needs a polygon of at least 3 x y pairs");
        for (float v : stroke.polygon)
            if (!std::isfinite(v)) fail(which + " has a vertex that is not a finite number");
    }
}

nlohmann::json regionsToJson(const PopulationRegions& regions) {
    nlohmann::json strokes = nlohmann::json::array();
    for (const RegionStroke& s : regions.strokes) {
        nlohmann::json polygon = nlohmann::json::array();
        for (float v : s.polygon) polygon.push_back(double(v));
        strokes.push_back({{"label", s.label}, {"from", s.from}, {"polygon", polygon}});
    }
    return {{"labels", regions.populationOfLabel},
            {"landmarks", regions.labelOfLandmark},
            {"strokes", strokes}};
}

PopulationRegions regionsFromJson(const nlohmann::json& json, const std::string& source) {
    const auto fail = [&](const std::string& what) {
        throw InputError(source + ": population regions: " + what);
    };
    const auto integers = [&](const nlohmann::json& a, const std::string& what) {
        if (!a.is_array()) fail("\"" + what + "\" is not an array of integers");
        std::vector<int32_t> out;
        for (const auto& v : a) {
            const bool fits =
                v.is_number_unsigned()
                    ? v.get<unsigned long long>() <= static_cast<unsigned long long>(INT32_MAX)
                    : v.is_number_integer() && v.get<long long>() >= -1;
            if (!fits) fail("\"" + what + "\" holds something that is not an integer >= -1");
            out.push_back(static_cast<int32_t>(v.get<long long>()));
        }
        return out;
    };
    if (!json.is_object() || !json.contains("labels") || !json.contains("landmarks") ||
        !json.contains("strokes") || !json["strokes"].is_array())
        fail("needs \"labels\", \"landmarks\" and a \"strokes\" array");
    PopulationRegions regions;
    regions.populationOfLabel = integers(json["labels"], "labels");
    regions.labelOfLandmark = integers(json["landmarks"], "landmarks");
    for (const auto& s : json["strokes"]) {
        if (!s.is_object() || !s.contains("label") || !s.contains("from") ||
            !s.contains("polygon") || !s["polygon"].is_array())
            fail("a stroke needs \"label\", \"from\" and a \"polygon\" array");
        RegionStroke stroke;
        const auto label = integers(nlohmann::json::array({s["label"]}), "label");
        stroke.label = label[0];
        stroke.from = integers(s["from"], "from");
        for (const auto& v : s["polygon"]) {
            if (!v.is_number() || !(std::fabs(v.get<double>()) <= 3.0e38))
                fail("a stroke's polygon holds something that is not a finite number");
            stroke.polygon.push_back(static_cast<float>(v.get<double>()));
        }
        regions.strokes.push_back(std::move(stroke));
    }
    return regions;
}

}  // namespace sepal
