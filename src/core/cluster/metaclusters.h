#pragma once
// Populations from landmarks, as FlowSOM makes them: the landmarks' data-space positions grouped
// into K metaclusters and every cell labelled by its nearest landmark's group (population_naming.h
// names them).

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/matrix.h"
#include "core/knn/nearest_search.h"
#include "core/markers/marker_classes.h"
#include "core/model/landmark_model.h"

namespace sepal {

/// How the landmarks are grouped.
enum class MetaclusterMethod {
    Ward,       ///< Ward's linkage on the landmarks' positions
    Consensus,  ///< FlowSOM's consensus clustering (resampled average linkage, then average
                ///< linkage on how often two landmarks were grouped together)
};

/// What metaclusterLandmarks needs.
struct MetaclusterSettings {
    size_t k = 10;  ///< populations to make
    /// Ward's, weighted: on the demo as good as consensus (ARI 0.93-0.94 at the true K); on
    /// real files consensus put 40-96% of the cells in one population and made 1-7 of 10 of
    /// fewer than 0.5% (QUALITY.md, "Populations from landmarks").
    MetaclusterMethod method = MetaclusterMethod::Ward;
    uint64_t seed = 1;      ///< the resamplings' seed
    int resamplings = 100;  ///< consensus: resampled clusterings
    double fraction = 0.9;  ///< consensus: landmarks per resampling
    /// Each landmark's weight, the cells it stands for (landmarkWeights); empty: one each. A
    /// landmark on a few outlying cells then joins a group instead of making its own.
    std::vector<double> weights;
    /// The dimensions the grouping compares, one flag per model column (the type markers:
    /// groupingColumns); empty: all of them.
    std::vector<uint8_t> columns;
};

/// The flags of MetaclusterSettings::columns for columns of these classes: the type markers,
/// or every column when fewer than two are type markers.
std::vector<uint8_t> groupingColumns(const std::vector<MarkerClass>& classes);

/// "ward" or "consensus" as a method; throws InputError naming both otherwise.
MetaclusterMethod metaclusterMethod(const std::string& name);

/// Each landmark's group (0 .. k-1, numbered by first landmark) from its data-space position.
/// Throws InputError when k is not in 1 .. g or the model has more landmarks than can be grouped.
std::vector<int32_t> metaclusterLandmarks(const LandmarkModel& model,
                                          const MetaclusterSettings& settings);

/// Weights for MetaclusterSettings::weights: how many of the points (with every value finite)
/// have each landmark as their nearest (nearest: one index per point, as groupsOfNearest takes
/// them), at least 1.
std::vector<double> landmarkWeights(const Matrix& points, const std::vector<uint32_t>& nearest,
                                    size_t landmarks);

/// Each point's nearest landmark in data space (an index; for a point with a missing value an
/// index too, which groupsOfNearest and landmarkWeights leave out).
std::vector<uint32_t> nearestLandmarks(const Matrix& points, const LandmarkModel& model,
                                       NearestSearch& search);

/// Each point's group from its nearest landmark (nearest: one index per point, as
/// Projector::projectFindingNearest or a NearestSearch gives them): -1 for a point with a missing
/// value, which has no nearest landmark.
std::vector<int32_t> groupsOfNearest(const Matrix& points, const std::vector<uint32_t>& nearest,
                                     const std::vector<int32_t>& groupOfLandmark);

/// Each point's group: that of its nearest landmark in data space (-1 for a point with a
/// missing value, which has no nearest landmark).
std::vector<int32_t> groupsOfPoints(const Matrix& points, const LandmarkModel& model,
                                    const std::vector<int32_t>& groupOfLandmark,
                                    NearestSearch& search);

/// The adjusted Rand index of two labellings of the same items (1: the same partition; about
/// 0: chance). Items with a negative label in either are left out.
double adjustedRandIndex(const std::vector<int32_t>& a, const std::vector<int32_t>& b);

}  // namespace sepal
