#pragma once
// The landmark model file: landmarks, 2D positions, graph, locks, the columns and the transform
// they were trained on, and the EmbedSOM parameters, as JSON so a model applies to new files.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/embedsom/embed_params.h"
#include "core/gate/gate_selection.h"
#include "core/markers/marker_classes.h"
#include "core/model/landmark_model.h"
#include "core/model/model_populations.h"
#include "core/model/population_regions.h"

namespace sepal {

/// The current model file format version; loading refuses newer versions.
inline constexpr int kModelFileVersion = 1;

/// What loadModel returns: the model and everything needed to apply it to a new file.
struct LoadedModel {
    LandmarkModel model;               ///< landmarks (versions start fresh)
    std::vector<std::string> columns;  ///< d column names, in the order of the model's dimensions
    nlohmann::json transform;          ///< TransformPipeline::toJson() output (opaque here)
    EmbedParams params;                ///< EmbedSOM parameters the model was used with
    std::vector<ModelPopulation> populations;  ///< named sets of landmarks (may be none)
    GateSelection gates;  ///< the cells the model was trained on and applies to (may be none)
    /// Populations drawn as layout regions (empty: the populations are sets of landmarks).
    PopulationRegions regions;
    /// Each column's marker class (empty in models written before the classes).
    std::vector<MarkerClass> markerClasses;
    /// The pipeline of the state markers kept beside the model's columns for medians and the
    /// heatmap (TransformPipeline::toJson(); null in models without one).
    nlohmann::json stateTransform;
    /// Each column's marker ($PnS) in the data it was trained on ("": none; empty in models
    /// written before the markers): checkPanel compares them with a file's before applying.
    std::vector<std::string> columnMarkers;
    /// The same for the state columns of stateTransform (empty in models without them).
    std::vector<std::string> stateColumnMarkers;
};

/// The model as a JSON document (the file's content); columns.size() must equal model.dim.
nlohmann::json modelToJson(const LandmarkModel& model, const std::vector<std::string>& columns,
                           const nlohmann::json& transformJson, const EmbedParams& params = {},
                           const std::vector<ModelPopulation>& populations = {},
                           const GateSelection& gates = {}, const PopulationRegions& regions = {},
                           const std::vector<MarkerClass>& markerClasses = {},
                           const nlohmann::json& stateTransform = nullptr,
                           const std::vector<std::string>& columnMarkers = {},
                           const std::vector<std::string>& stateColumnMarkers = {});
/// Parses a model document; `source` names it in errors. Throws InputError naming the field.
LoadedModel modelFromJson(const nlohmann::json& doc, const std::string& source);

/// Writes the model file atomically (temporary name, then rename). Throws InputError on failure.
/// A state pipeline without columns is left out.
void saveModel(const std::string& path, const LandmarkModel& model,
               const std::vector<std::string>& columns, const nlohmann::json& transformJson,
               const EmbedParams& params = {}, const std::vector<ModelPopulation>& populations = {},
               const GateSelection& gates = {}, const PopulationRegions& regions = {},
               const std::vector<MarkerClass>& markerClasses = {},
               const nlohmann::json& stateTransform = nullptr,
               const std::vector<std::string>& columnMarkers = {},
               const std::vector<std::string>& stateColumnMarkers = {});
/// The marker classes of the columns a tally of the model counts: its columns' (type where the
/// model has none), then its state columns' (state).
std::vector<MarkerClass> tallyClasses(const LoadedModel& loaded);
/// Reads a model file. Throws InputError naming the file and the malformed field.
LoadedModel loadModel(const std::string& path);

/// True when `path` holds a model file (a JSON document with the model format's name), so that
/// opening it applies the model instead of reading it as data.
bool isModelFile(const std::string& path);

}  // namespace sepal
