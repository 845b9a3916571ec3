#pragma once
// How well landmarks cover the data: the numbers SOM and k-means tests and the GUI watch.

#include "core/knn/nearest_search.h"
#include "core/model/landmark_model.h"
#include "core/train/trainer.h"

namespace sepal {

/// Mean distance from each point to its nearest landmark (the SOM quantisation error).
double quantisationError(const LandmarkModel& model, const TrainingData& data,
                         NearestSearch& search);
/// Sum over points of the squared distance to the nearest landmark (the k-means objective).
double kmeansObjective(const LandmarkModel& model, const TrainingData& data, NearestSearch& search);

}  // namespace sepal
