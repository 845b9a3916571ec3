#pragma once
// Initial landmark placement: a random sample of the data, the PCA plane, or a grid.

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/landmark_model.h"
#include "core/train/trainer.h"

namespace sepal {

/// The plane of the two largest principal components of the data.
struct PcaPlane {
    std::vector<float> mean;   ///< d values
    std::vector<float> axis1;  ///< d values, unit length, largest variance
    std::vector<float> axis2;  ///< d values, unit length, orthogonal to axis1
    float sd1 = 0.0f;          ///< standard deviation of the data along axis1
    float sd2 = 0.0f;          ///< standard deviation of the data along axis2
};

/// PCA by power iteration on the covariance of at most maxPoints points (a seeded sample of the
/// points whose values are all finite); throws InputError when there are none.
PcaPlane computePcaPlane(const TrainingData& data, uint64_t seed, size_t maxPoints = 100000);

/// How initModel places landmarks.
enum class InitMethod {
    Sample,  ///< data space: g distinct random points; 2D: their PCA coordinates
    Pca,     ///< g random points projected onto the PCA plane, in both spaces
    Grid,    ///< 2D: a rows x cols grid (unit spacing); data space: the same grid on the PCA plane
};

/// Parameters of initModel.
struct InitParams {
    InitMethod method = InitMethod::Grid;  ///< placement
    size_t g = 0;                          ///< landmarks for Sample and Pca
    size_t rows = 0;                       ///< grid rows for Grid (g = rows * cols)
    size_t cols = 0;                       ///< grid columns for Grid
    uint64_t seed = 1;                     ///< random seed
};

/// Parses "sample", "pca" or "grid"; throws InputError otherwise.
InitMethod parseInitMethod(const std::string& name);

/// Replaces the model's landmarks (all unlocked, no edges) by a fresh placement; 2D positions
/// are in grid-like units (about sqrt(g) wide) so that EmbedSOM defaults fit. Points with NaN or
/// infinity are never sampled. Throws InputError.
void initModel(LandmarkModel& model, const TrainingData& data, const InitParams& params);

}  // namespace sepal
