#pragma once
// Everything the user edits, in one value: data settings, model, colours, populations, view.

#include <array>
#include <cstdint>
#include <string>

#include "app/colouring.h"
#include "app/dataset.h"
#include "core/embedsom/projector.h"
#include "core/model/landmark_model.h"

namespace sepal::app {

/// How the points are drawn.
struct ViewSettings {
    float pointSize = 3.0f;     ///< splat diameter, logical pixels
    float alpha = 0.6f;         ///< splat opacity
    bool showLandmarks = true;  ///< draw landmark discs
    bool showGraph = true;      ///< draw the landmark graph
    bool operator==(const ViewSettings&) const = default;
};

/// Trainer choice and parameters (what the Training window edits).
struct TrainingSettings {
    std::string trainer = "som";   ///< trainer name (som, plsom, kmeans, graph, tsne, umap)
    int landmarks = 100;           ///< g for a new model
    int graphK = 3;                ///< neighbours per landmark in the graph
    uint64_t seed = 1;             ///< every stochastic step is seeded
    float sigma = 1.5f;            ///< neighbourhood radius at the start (SOM)
    float alpha = 0.05f;           ///< learning rate at the start
    int epochs = 20;               ///< passes over the training subsample
    std::string layout = "force";  ///< 2D layout for graph trainers
    bool operator==(const TrainingSettings&) const = default;
};

/// The parts of the state; a change of one bumps its version.
enum class Part { Data, Model, Colour, Populations, View, Training };

/// The user's document. Version counters tell consumers (sweeper, colours, GPU buffers) what
/// changed.
struct State {
    Dataset data;                        ///< opened samples and the transformed matrix
    DataSettings dataSettings;           ///< transform and compensation choices
    LandmarkModel model;                 ///< landmarks; its own versions drive the sweeper
    EmbedParams embed;                   ///< EmbedSOM parameters (k, smooth, adjust)
    ColourSettings colour;               ///< colouring
    Populations populations;             ///< brushed groups
    ViewSettings view;                   ///< drawing
    TrainingSettings training;           ///< trainer choices
    std::array<uint64_t, 6> versions{};  ///< per Part
    uint64_t counter = 0;                ///< source of fresh version numbers

    /// Marks a part changed (and, for the model, gives it fresh version numbers).
    void bump(Part part);
    /// Version of a part.
    uint64_t version(Part part) const { return versions[size_t(part)]; }
};

}  // namespace sepal::app
