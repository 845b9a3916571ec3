#pragma once
// From a matrix of transformed events to landmarks and 2D coordinates: the whole "embed" recipe
// (initialise, train landmarks, lay them out, project), shared by sepal-cli and the GUI.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/common/matrix.h"
#include "core/embedsom/projector.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_model.h"
#include "core/pipeline/landmark_spec.h"
#include "core/pipeline/polish.h"

namespace sepal {

/// Everything the recipe needs besides the data; the defaults are the quality defaults of
/// docs/QUALITY.md.
struct EmbedSettings {
    /// What to train; by default k-means with as many landmarks as the cells call for.
    LandmarkSpec landmarks = {trainer_name::kKmeans, 0, 0, 0};
    /// One of layoutForms(); empty: the landmark trainer's (tsne after kmeans, the grid after a
    /// SOM: TrainerInfo::followedBy).
    std::string layout;
    EmbedParams params = {16, -2.0f, 3.0f};  ///< EmbedSOM k, smooth, adjust
    uint64_t seed = 1;                       ///< every random choice
    size_t trainSample = 20000;              ///< points the landmarks are trained on (0 = all)
    /// Per point, its group (a sample of a cohort); when not empty, the training sample takes
    /// the same number of points from every group (all of a smaller group's).
    std::vector<int32_t> balanceGroups;
    /// Overrides for the landmark trainer's run (over its entry's TrainerInfo::batch: 10 Lloyd
    /// iterations for kmeans, 10 epochs for the SOMs), e.g. {"epochs": 3}.
    nlohmann::json landmarkParams = nlohmann::json::object();
    /// Overrides for the layout trainer's run (over its entry's batch parameters).
    nlohmann::json layoutParams = nlohmann::json::object();
    /// Per point, its label (a label column or a population; -1 none) for a supervised layout:
    /// landmarks take their points' most common label and the layout (tsne or umap) pulls each
    /// label's landmarks together. Empty: unsupervised.
    std::vector<int32_t> supervision;
    float supervisionStrength = 3.0f;  ///< different labels' similarity times exp(-strength)
    PolishParams polish;  ///< after the projection (epochs 0: none); polished cells leave EmbedSOM
};

/// Stage reports: stage name ("train", "layout", "project") and fraction done in [0, 1].
using ProgressFn = std::function<void(const std::string& stage, double fraction)>;

/// Wall-clock seconds per stage.
struct EmbedTimings {
    double train = 0.0;    ///< initialisation and landmark training
    double layout = 0.0;   ///< 2D layout of the landmarks
    double project = 0.0;  ///< EmbedSOM of all points
    double polish = 0.0;   ///< the optional polish of every point
    int threads = 0;       ///< threads the stages ran on (cut to the cores free at the start)
};

/// Trains landmarks on (a seeded subsample of) points (n x d) and lays them out in 2D. Events
/// with NaN or infinity in any column are left out of training; their number goes to
/// `skippedNonFinite`. Throws InputError when fewer usable events than landmarks remain.
LandmarkModel trainLandmarks(const Matrix& points, const EmbedSettings& settings,
                             NearestSearch& search, const ProgressFn& progress = {},
                             EmbedTimings* timings = nullptr, size_t* skippedNonFinite = nullptr);

/// What embedMatrix produces.
struct EmbedResult {
    LandmarkModel model;         ///< the trained landmarks
    Matrix xy;                   ///< n x 2 coordinates
    ProjectionReport report;     ///< points a user should hear about
    EmbedTimings timings;        ///< seconds per stage
    std::string polishNote;      ///< why the polish ran elsewhere than asked ("" when it did not)
    size_t trainingSkipped = 0;  ///< events left out of training for NaN or infinity
};

/// trainLandmarks, then projects every point. Throws InputError for impossible settings
/// (more landmarks than points, k out of range).
EmbedResult embedMatrix(const Matrix& points, const EmbedSettings& settings, Projector& projector,
                        NearestSearch& search, const ProgressFn& progress = {});

}  // namespace sepal
