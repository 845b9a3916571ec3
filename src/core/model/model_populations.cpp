#include "core/model/model_populations.h"

#include "core/common/error.h"

namespace sepal {

std::vector<ModelPopulation> populationsFromGroups(const std::vector<int32_t>& groupOfLandmark,
                                                   const std::vector<std::string>& names) {
    std::vector<ModelPopulation> out(names.size());
    for (size_t p = 0; p < names.size(); ++p) out[p].name = names[p];
    for (size_t j = 0; j < groupOfLandmark.size(); ++j) {
        const int32_t g = groupOfLandmark[j];
        if (g >= 0 && size_t(g) < out.size()) out[size_t(g)].landmarks.push_back(uint32_t(j));
    }
    return out;
}

std::vector<int32_t> groupsOfLandmarks(const std::vector<ModelPopulation>& populations, size_t g) {
    std::vector<int32_t> group(g, -1);
    for (size_t p = 0; p < populations.size(); ++p)
        for (uint32_t j : populations[p].landmarks) {
            if (j >= g)
                throw InputError("population \"" + populations[p].name + "\" names landmark " +
                                 std::to_string(j) + "; the model has " + std::to_string(g));
            if (group[j] >= 0)
                throw InputError("landmark " + std::to_string(j) + " is in two populations (\"" +
                                 populations[size_t(group[j])].name + "\" and \"" +
                                 populations[p].name + "\")");
            group[j] = int32_t(p);
        }
    return group;
}

std::vector<std::string> populationNames(const std::vector<ModelPopulation>& populations) {
    std::vector<std::string> names;
    for (const auto& p : populations) names.push_back(p.name);
    return names;
}

}  // namespace sepal
