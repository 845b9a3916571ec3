#include "core/model/landmark_model.h"

#include <cmath>
#include <string>

#include "core/common/error.h"

namespace sepal {

void LandmarkModel::resize(size_t g, size_t d) {
    dim = d;
    high.assign(g * d, 0.0f);
    low.assign(g * 2, 0.0f);
    locked.assign(g, 0);
    edges.clear();
    touch();
}

size_t LandmarkModel::add(const float* highValues, float x, float y) {
    high.insert(high.end(), highValues, highValues + dim);
    low.push_back(x);
    low.push_back(y);
    locked.push_back(0);
    touch();
    return locked.size() - 1;
}

void LandmarkModel::remove(size_t i) {
    if (i >= count())
        throw InputError("cannot remove landmark " + std::to_string(i) + ": only " +
                         std::to_string(count()) + " landmarks");
    high.erase(high.begin() + i * dim, high.begin() + (i + 1) * dim);
    low.erase(low.begin() + i * 2, low.begin() + (i + 1) * 2);
    locked.erase(locked.begin() + i);
    std::vector<std::pair<uint32_t, uint32_t>> kept;
    for (auto [a, b] : edges) {
        if (a == i || b == i) continue;
        kept.emplace_back(a > i ? a - 1 : a, b > i ? b - 1 : b);
    }
    edges = std::move(kept);
    touch();
}

void LandmarkModel::validate() const {
    const size_t g = count();
    if (high.size() != g * dim || low.size() != g * 2)
        throw InputError("landmark model is inconsistent: " + std::to_string(g) +
                         " landmarks but " + std::to_string(high.size()) + " data values and " +
                         std::to_string(low.size()) + " 2D values");
    for (size_t i = 0; i < high.size(); ++i)
        if (!std::isfinite(high[i]))
            throw InputError("landmark " + std::to_string(i / dim) +
                             " has a non-finite value in "
                             "dimension " +
                             std::to_string(i % dim));
    for (size_t i = 0; i < low.size(); ++i)
        if (!std::isfinite(low[i]))
            throw InputError("landmark " + std::to_string(i / 2) + " has a non-finite 2D position");
    for (auto [a, b] : edges)
        if (a >= g || b >= g)
            throw InputError("landmark graph names a landmark that does not exist");
}

}  // namespace sepal
