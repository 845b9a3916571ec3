#pragma once
// Populations that travel with a model: named sets of landmarks. A cell belongs to the
// population of its nearest landmark in data space, in every file the model is applied to.

#include <cstdint>
#include <string>
#include <vector>

namespace sepal {

/// One named population: the landmarks whose cells it takes.
struct ModelPopulation {
    std::string name;                 ///< what the user calls it ("CD3+ CD4+")
    std::vector<uint32_t> landmarks;  ///< landmark indices, ascending
    std::string phenotype;  ///< the type markers that set it apart ("CD3+ CD4+ CCR7+"), or empty
};

/// The populations of groups 0 .. names.size()-1 from each landmark's group (-1: none).
std::vector<ModelPopulation> populationsFromGroups(const std::vector<int32_t>& groupOfLandmark,
                                                   const std::vector<std::string>& names);

/// Each of g landmarks' population index (-1: none). Throws InputError when an index is out of
/// range or a landmark is in two populations.
std::vector<int32_t> groupsOfLandmarks(const std::vector<ModelPopulation>& populations, size_t g);

/// The populations' names, in order.
std::vector<std::string> populationNames(const std::vector<ModelPopulation>& populations);

}  // namespace sepal
