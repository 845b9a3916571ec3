#include "app/populations.h"

#include <algorithm>

#include "core/gate/gate.h"

namespace sepal::app {

size_t paintPolygon(const std::vector<float>& polygon, const std::vector<float>& xy, uint8_t code,
                    std::vector<uint8_t>& membership) {
    float minX = polygon[0], maxX = polygon[0], minY = polygon[1], maxY = polygon[1];
    for (size_t i = 0; i < polygon.size(); i += 2) {
        minX = std::min(minX, polygon[i]), maxX = std::max(maxX, polygon[i]);
        minY = std::min(minY, polygon[i + 1]), maxY = std::max(maxY, polygon[i + 1]);
    }
    size_t count = 0;
    for (size_t i = 0; i < membership.size() && 2 * i + 1 < xy.size(); ++i) {
        float x = xy[2 * i], y = xy[2 * i + 1];
        if (x < minX || x > maxX || y < minY || y > maxY || !insidePolygon(polygon, x, y)) continue;
        membership[i] = code;
        ++count;
    }
    return count;
}

Populations withoutGroup(const Populations& populations, size_t i) {
    Populations next = populations;
    next.groups.erase(next.groups.begin() + long(i));
    if (!next.regions.empty()) next.regions = withoutPopulation(next.regions, int32_t(i));
    for (auto& m : next.membership) {
        if (m == i + 1)
            m = 0;
        else if (m > i + 1)
            --m;
    }
    return next;
}

Populations mergedGroups(const Populations& populations, size_t from, size_t into) {
    const size_t k = populations.groups.size();
    if (from >= k || into >= k || from == into) return populations;
    Populations next = populations;
    for (auto& m : next.membership)
        if (m == from + 1) m = uint8_t(into + 1);
    // Labels that ended in `from` end in `into`; withoutGroup then renumbers them.
    for (int32_t& p : next.regions.populationOfLabel)
        if (p == int32_t(from)) p = int32_t(into);
    return withoutGroup(next, from);
}

std::vector<size_t> groupSizes(const Populations& populations) {
    std::vector<size_t> sizes(populations.groups.size(), 0);
    for (uint8_t m : populations.membership)
        if (m > 0 && m <= sizes.size()) ++sizes[m - 1];
    return sizes;
}

Populations populationsFromCodes(const std::vector<std::string>& names,
                                 const std::vector<int32_t>& codes) {
    Populations out;
    for (size_t i = 0; i < names.size(); ++i)
        out.groups.push_back({names[i], paletteColour(i + 3)});
    out.membership.resize(codes.size(), 0);
    for (size_t i = 0; i < codes.size(); ++i)
        if (codes[i] >= 0 && size_t(codes[i]) < names.size())
            out.membership[i] = uint8_t(codes[i] + 1);
    return out;
}

}  // namespace sepal::app
