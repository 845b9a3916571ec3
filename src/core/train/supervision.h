#pragma once
// Supervised layouts: labels of the cells (a label column, or populations) carried over to the
// landmarks, and the factor that weakens the similarity of landmarks with different labels.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/knn/nearest_search.h"
#include "core/model/landmark_model.h"

namespace sepal {

/// The label of each landmark: the most common label among the points whose nearest landmark
/// it is (ties to the lower label; -1 when none of them has one). points: n x d (the model's
/// d); labels: n values, -1 for none. Points with a missing value are left out.
std::vector<int32_t> landmarkLabels(const float* points, size_t n, size_t d,
                                    const std::vector<int32_t>& labels, const LandmarkModel& model,
                                    NearestSearch& search);

/// Per ordered pair of the g landmarks: exp(-strength) when both labels are known and differ,
/// else 1 (g x g, row-major). labels: g values.
std::vector<float> supervisionFactors(const std::vector<int32_t>& labels, float strength);

}  // namespace sepal
