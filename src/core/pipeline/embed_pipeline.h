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
#include "core/pipeline/polish.h"

namespace sepal {

/// Which landmarks to train: a data-space trainer of the registry (trainer_registry.h) with its
/// grid ("som:RxC") or its number of sampled landmarks ("kmeans:G").
struct LandmarkSpec {
    std::string kind = "kmeans";  ///< the trainer's name: som, batchsom, plsom or kmeans
    size_t rows = 0;              ///< grid trainers: grid rows
    size_t cols = 0;              ///< grid trainers: grid columns
    size_t count = 0;             ///< number of landmarks (rows * cols for grids)
};

/// The forms parseLandmarkSpec takes, from the registry: "som:ROWSxCOLS, ... or kmeans:COUNT".
std::string landmarkForms();

/// Parses "som:16x16", "plsom:12x12", "kmeans:256" (any data-space trainer of the registry);
/// throws InputError that lists landmarkForms().
LandmarkSpec parseLandmarkSpec(const std::string& text);

/// The layouts checkLayout takes: the registry's layout trainers, then "grid" (keep the 2D
/// positions the landmarks start with): "graph, tsne, umap or grid".
std::string layoutForms();

/// Returns `text` when it is empty (the default layout), "none" or one of layoutForms();
/// throws InputError otherwise, listing them.
const std::string& checkLayout(const std::string& text);

/// EmbedSOM parameters that suit the landmarks: for k-means with a t-SNE layout the quality
/// defaults of docs/QUALITY.md (k 16, smooth -2, adjust 3); for SOM grids the R package's
/// (k = 1 + sqrt(g), smooth 0, adjust 1).
EmbedParams defaultEmbedParams(const LandmarkSpec& spec);

/// Everything the recipe needs besides the data; the defaults are the quality defaults of
/// docs/QUALITY.md.
struct EmbedSettings {
    LandmarkSpec landmarks = {"kmeans", 0, 0, 512};  ///< what to train
    std::string layout;  ///< one of layoutForms(); empty: tsne for kmeans, the grid for SOMs
    EmbedParams params = {16, -2.0f, 3.0f};  ///< EmbedSOM k, smooth, adjust
    uint64_t seed = 1;                       ///< every random choice
    size_t trainSample = 20000;              ///< points the landmarks are trained on (0 = all)
    /// Per point, its group (a sample of a cohort); when not empty, the training sample takes
    /// the same number of points from every group (all of a smaller group's).
    std::vector<int32_t> balanceGroups;
    size_t lloydIterations = 10;  ///< kmeans: Lloyd iterations after sampling landmarks
    size_t somEpochs = 10;        ///< som and plsom: passes over the training sample
    nlohmann::json layoutParams = nlohmann::json::object();  ///< overrides for the layout trainer
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
    size_t trainingSkipped = 0;  ///< events left out of training for NaN or infinity
};

/// trainLandmarks, then projects every point. Throws InputError for impossible settings
/// (more landmarks than points, k out of range).
EmbedResult embedMatrix(const Matrix& points, const EmbedSettings& settings, Projector& projector,
                        NearestSearch& search, const ProgressFn& progress = {});

}  // namespace sepal
