#pragma once
// What sepal-cli embed's --landmarks and --layout take, read from the trainer registry: the
// landmark trainer with its grid or count, the layout after it (asked for or the trainer's
// default), the EmbedSOM parameters that suit it, and the texts that list them.

#include <cstddef>
#include <functional>
#include <string>

#include "core/embedsom/embed_params.h"
#include "core/train/trainer_names.h"
#include "core/train/trainer_registry.h"

namespace sepal {

/// Which landmarks to train: a registry trainer that places landmarks, with its grid
/// ("som:RxC") or its number of sampled landmarks ("kmeans:G"), as its entry starts them.
struct LandmarkSpec {
    std::string kind = trainer_name::kKmeans;  ///< the trainer's registry name
    size_t rows = 0;                           ///< grid trainers: grid rows
    size_t cols = 0;                           ///< grid trainers: grid columns
    /// Number of landmarks (rows * cols for grids); 0 for sampled landmarks ("kmeans:auto"):
    /// as many as the cells call for (landmarksForCells).
    size_t count = 0;
};

/// The fewest landmarks a model may have: EmbedSOM's k is at least 4.
inline constexpr size_t kFewestLandmarks = 4;

/// How many landmarks `cells` cells call for: one for every 20 cells, at least 64 and at most
/// 512 (from 10,240 cells up), never more than the cells (but at least 16, EmbedSOM's k). A
/// landmark is a summary of its cells: 512 on 2,000 cells would each stand for four, and cover the
/// picture with their discs.
size_t landmarksForCells(size_t cells);

/// `spec` with its automatic count (0) set for `cells` cells; any other spec as it is.
LandmarkSpec landmarksFor(LandmarkSpec spec, size_t cells);

/// The forms parseLandmarkSpec takes, from the registry: "som:ROWSxCOLS, ... or kmeans:COUNT".
std::string landmarkForms();

/// Parses "som:16x16", "plsom:12x12", "kmeans:256", "kmeans:auto" (any trainer of the registry
/// that places landmarks); throws InputError that lists landmarkForms().
LandmarkSpec parseLandmarkSpec(const std::string& text);

/// The spec of `trainer`'s landmarks: rows x cols when its entry starts from a grid, else
/// `count`; throws InputError as parseLandmarkSpec does for the same text.
LandmarkSpec landmarkSpec(const std::string& trainer, size_t rows, size_t cols, size_t count);

/// The text parseLandmarkSpec reads back: "som:10x10", "kmeans:512" or "kmeans:auto".
std::string landmarkSpecText(const LandmarkSpec& spec);

/// The layouts checkLayout takes: the registry's layout trainers, then "grid" (keep the 2D
/// positions the landmarks start with): "graph, tsne, umap or grid".
std::string layoutForms();

/// Returns `text` when it is empty (the default layout), "none" or one of layoutForms();
/// throws InputError otherwise, listing them.
const std::string& checkLayout(const std::string& text);

/// The layout that follows `spec`'s landmarks: `layout` when not empty, else the landmark
/// trainer's default (TrainerInfo::followedBy: tsne after k-means, the grid after a SOM).
std::string layoutAfter(const LandmarkSpec& spec, const std::string& layout);

/// The layout trainer of a layout name, or nullptr when the name keeps the 2D start ("grid",
/// "none") or names no layout.
const TrainerInfo* layoutTrainer(const std::string& layout);

/// The layouts that a label can supervise (TrainerInfo::supervisable): "tsne or umap".
std::string supervisableLayouts();

/// EmbedSOM parameters that suit the landmarks, from their trainer's entry: for k-means the
/// quality defaults of docs/QUALITY.md (k 16, smooth -2, adjust 3); for SOM grids the R
/// package's (k = 1 + sqrt(g), smooth 0, adjust 1).
EmbedParams defaultEmbedParams(const LandmarkSpec& spec);

/// For help texts: `value` of each trainer that places landmarks, grouped by value in registry
/// order ("tsne for kmeans and online-kmeans, the grid for som, batchsom and plsom").
std::string perLandmarkTrainer(const std::function<std::string(const TrainerInfo&)>& value);

}  // namespace sepal
