#pragma once
// Everything the user edits, in one value: data settings, model, colours, populations, view.

#include <array>
#include <cstdint>
#include <string>

#include "app/colouring.h"
#include "app/dataset.h"
#include "app/gating.h"
#include "core/embedsom/projector.h"
#include "core/markers/marker_classes.h"
#include "core/model/landmark_model.h"
#include "core/train/trainer_names.h"

namespace sepal::app {

/// How the points are drawn.
struct ViewSettings {
    float pointSize = 3.0f;  ///< splat diameter, logical pixels
    float alpha = 0.6f;      ///< splat opacity
    /// Draw the landmark discs (and pick them to steer); off by default, so that the cells are
    /// what a picture shows first (L or Colour > Landmarks shows them).
    bool showLandmarks = false;
    bool showGraph = true;        ///< draw the landmark graph
    bool smallMultiples = false;  ///< one panel per sample (or group) instead of an overlay
    int panelsBy = -1;            ///< small multiples: -1 one per sample, else a metadata column
    bool operator==(const ViewSettings&) const = default;
};

/// What the Training window edits: the recipe that trains a whole model (as `sepal-cli embed`
/// does) and the trainer that refines the current landmarks step by step.
struct TrainingSettings {
    std::string recipe = "default";  ///< a name from recipes() (app/recipes.h)
    /// Recipes of sampled landmarks (k-means): their number; 0 as many as the cells call for
    /// (landmarksForCells), as sepal-cli embed's default kmeans:auto.
    int landmarks = 0;
    int gridRows = 10;        ///< recipes of grid landmarks (SOM): grid rows
    int gridCols = 10;        ///< recipes of grid landmarks (SOM): grid columns
    int trainSample = 20000;  ///< events the recipe trains on (0 = all)
    bool balanced = false;    ///< the same number of events from each sample (--balanced)
    /// Supervised layout: "" none, "populations" (the app's), or a label column of the data;
    /// the layout pulls each label's landmarks together (embed --supervise)
    std::string supervise;
    float supervisionStrength = 3.0f;  ///< embed --supervision-strength
    uint64_t seed = 1;                 ///< every stochastic step is seeded
    /// The refining trainer: a registry entry's name (core/train/trainer_registry.h).
    std::string trainer = trainer_name::kSom;
    int graphK = 3;       ///< neighbours per landmark in the graph
    float sigma = 1.5f;   ///< SOM neighbourhood radius at the start, in map spacings
    float alpha = 0.05f;  ///< learning rate at the start
    int epochs = 20;      ///< passes over the training subsample
    /// Marker classes the user set in the Data window, by channel name (over the catalogue's);
    /// only type markers name populations (embed --marker-classes).
    MarkerClassOverrides markerClasses;
    bool operator==(const TrainingSettings&) const = default;
};

/// The parts of the state; a change of one bumps its version.
enum class Part { Data, Model, Colour, Populations, View, Training, Gates };

/// The user's document. Version counters tell consumers (sweeper, colours, GPU buffers) what
/// changed.
struct State {
    Dataset data;                        ///< opened samples and the transformed matrix
    TransformPipeline pipeline;          ///< channels, compensation and transforms (core's)
    LandmarkModel model;                 ///< landmarks; its own versions drive the sweeper
    EmbedParams embed;                   ///< EmbedSOM parameters (k, smooth, adjust)
    ColourSettings colour;               ///< colouring
    Populations populations;             ///< brushed groups
    Gating gating;                       ///< the gates and the cells inside them
    SampleMetadata metadata;             ///< condition, patient, batch... of the samples
    ViewSettings view;                   ///< drawing
    TrainingSettings training;           ///< trainer choices
    std::array<uint64_t, 7> versions{};  ///< per Part
    uint64_t counter = 0;                ///< source of fresh version numbers

    /// Marks a part changed (and, for the model, gives it fresh version numbers).
    void bump(Part part);
    /// Version of a part.
    uint64_t version(Part part) const { return versions[size_t(part)]; }
};

}  // namespace sepal::app
