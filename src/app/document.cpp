#include "app/document.h"

#include <algorithm>
#include <cmath>

#include "app/initial_model.h"
#include "app/populations.h"
#include "core/train/trainer_registry.h"

namespace sepal::app {

namespace {
// Landmarks of the untrained start model shown while the recipe trains.
constexpr size_t kStartLandmarks = 64;

LandmarkModel startModelOf(const State& s) {
    // A sample of the cells on their PCA plane: a fair first look while the recipe trains.
    return makeInitialModel(s.data.points, kStartLandmarks, 0, s.training.seed,
                            TrainerInit::Sample);
}

// Replacing the pipeline rebuilds the matrix; the model of the old space does not fit the new
// one, so the command carries the model before and the one made after (redo reuses it).
struct PipelineSnapshot {
    TransformPipeline pipeline;
    LandmarkModel model;  // empty: "a fresh start model", made once, then kept for redo
    EmbedParams params;
    void restore(State& s) {
        rebuildPoints(s.data, pipeline);
        s.pipeline = pipeline;
        s.bump(Part::Data);
        s.bump(Part::Colour);
        if (model.dim != s.data.points.cols || model.count() == 0) model = startModelOf(s);
        s.model = model;
        s.embed = params;
        s.bump(Part::Model);
    }
};
using PipelineCommand = SnapshotCommand<PipelineSnapshot>;

bool samePipeline(const TransformPipeline& a, const TransformPipeline& b) {
    return a.toJson() == b.toJson();
}
}  // namespace

Document::Document(Log& log) : m_log(log) {}

LandmarkModel Document::startModel() const {
    return startModelOf(m_state);
}

// ---------------------------------------------------------------- settings

void Document::setColour(const ColourSettings& s, const std::string& mergeKey) {
    if (s == m_state.colour) return;
    execute(std::make_unique<ChangeCommand<ColourSettings>>(
        &State::colour, Part::Colour, m_state.colour, s, "Change colouring", mergeKey));
}

void Document::setView(const ViewSettings& s, const std::string& mergeKey) {
    if (s == m_state.view) return;
    execute(std::make_unique<ChangeCommand<ViewSettings>>(&State::view, Part::View, m_state.view, s,
                                                          "Change drawing", mergeKey));
}

void Document::setTraining(const TrainingSettings& s, const std::string& mergeKey) {
    if (s == m_state.training) return;
    execute(std::make_unique<ChangeCommand<TrainingSettings>>(
        &State::training, Part::Training, m_state.training, s, "Change training", mergeKey));
}

void Document::setEmbed(const EmbedParams& p, const std::string& mergeKey) {
    try {
        validateParams(p, m_state.model.count());
    } catch (const std::exception& e) {
        m_log.add(LogEntry::Error, e.what());
        return;
    }
    // EmbedSOM parameters change every position, like a model edit.
    execute(std::make_unique<ChangeCommand<EmbedParams>>(&State::embed, Part::Model, m_state.embed,
                                                         p, "Change projection", mergeKey));
}

void Document::showGraph(bool show) {
    if (m_state.view.showGraph == show) return;
    m_state.view.showGraph = show;
    m_state.bump(Part::View);
}

// ---------------------------------------------------------------- data and models

bool Document::acceptsPipeline(const TransformPipeline& pipeline) const {
    if (m_state.data.tables.empty() || samePipeline(pipeline, m_state.pipeline)) return false;
    if (pipeline.steps.empty()) {
        m_log.add(LogEntry::Error, "at least one marker must be used");
        return false;
    }
    return true;
}

bool Document::setPipeline(const TransformPipeline& pipeline) {
    if (!acceptsPipeline(pipeline)) return false;
    try {
        pipeline.validate();
        execute(std::make_unique<PipelineCommand>(
            PipelineSnapshot{m_state.pipeline, m_state.model, m_state.embed},
            PipelineSnapshot{pipeline, LandmarkModel{}, m_state.embed}, "Change transform"));
    } catch (const std::exception& e) {
        m_log.add(LogEntry::Error, e.what());
        return false;
    }
    seal();
    m_untrained = true;
    return true;
}

void Document::adoptModel(const TransformPipeline& pipeline, const LandmarkModel& model,
                          const EmbedParams& params, const std::string& label) {
    execute(std::make_unique<PipelineCommand>(
        PipelineSnapshot{m_state.pipeline, m_state.model, m_state.embed},
        PipelineSnapshot{pipeline, model, params}, label));
    seal();
    m_untrained = false;
    ++m_fitRequests;
}

void Document::replaceModel(const LandmarkModel& after, const std::string& label) {
    execute(std::make_unique<ChangeCommand<LandmarkModel>>(&State::model, Part::Model,
                                                           m_state.model, after, label));
    seal();
}

void Document::adoptTrained(LandmarkModel model, const EmbedParams& params,
                            const std::string& label, bool undoable) {
    if (undoable) {
        auto command =
            std::make_unique<ModelCommand>(ModelSnapshot{m_state.model, m_state.embed},
                                           ModelSnapshot{std::move(model), params}, label);
        if (m_joinTraining) {
            m_undo.joinLast(m_joinTraining, std::move(command), m_state);
            m_joinTraining = nullptr;
        } else {
            execute(std::move(command));
        }
        seal();
    } else {
        m_state.model = std::move(model);
        m_state.embed = params;
        m_state.bump(Part::Model);
    }
    m_untrained = false;
    ++m_fitRequests;
}

void Document::recordModelEdit(LandmarkModel before, const std::string& label) {
    m_undo.record(std::make_unique<ChangeCommand<LandmarkModel>>(
        &State::model, Part::Model, std::move(before), m_state.model, label));
    seal();
}

void Document::replaceData(Dataset data, TransformPipeline pipeline) {
    m_state.data = std::move(data);
    m_state.pipeline = std::move(pipeline);
    // First colouring: labels when the file has them, samples when there are several, else density.
    if (!m_state.data.tables.front().labels.empty())
        m_state.colour.mode = ColourMode::Label;
    else if (m_state.data.samples.size() > 1)
        m_state.colour.mode = ColourMode::Sample;
    else
        m_state.colour.mode = ColourMode::Density;
    m_state.populations = Populations{};
    m_state.populations.membership.assign(m_state.data.events(), 0);
    // Clean-up gates suit the next files of a panel too; they go when a file lacks a channel.
    if (!m_state.gating.gates.empty()) {
        try {
            m_state.gating = gatingOf(m_state.data, m_state.gating.gates);
            m_log.add(LogEntry::Info,
                      gatedSummary(m_state.gating.events(m_state.data.events()).size(),
                                   m_state.data.events(), m_state.gating.gates));
        } catch (const std::exception& e) {
            m_log.add(LogEntry::Warning, std::string("the gates were removed: ") + e.what());
            m_state.gating = Gating{};
        }
    }
    m_state.bump(Part::Gates);
    m_undo.clear();
    m_state.bump(Part::Data);
    m_state.model = startModel();
    m_untrained = true;
    m_state.bump(Part::Model);
    m_state.bump(Part::Populations);
    m_state.bump(Part::Colour);
}

void Document::replaceAll(State next) {
    m_untrained = false;
    next.counter = m_state.counter;
    m_state = std::move(next);
    for (auto p : {Part::Data, Part::Model, Part::Colour, Part::Populations, Part::View,
                   Part::Training, Part::Gates})
        m_state.bump(p);
    m_undo.clear();
}

// ---------------------------------------------------------------- populations

namespace {
/// Records a lasso stroke that painted population `id` (taking only the cells of `from`, -1:
/// any) in the regions, so that a model labels new files the same way. The first population of
/// a document starts the regions; populations of unknown making have none, and keep none.
void addStroke(PopulationRegions& regions, const std::vector<float>& polygon, size_t id,
               int32_t from, bool first, size_t landmarks) {
    if (first) regions = PopulationRegions{{}, std::vector<int32_t>(landmarks, -1), {}};
    if (regions.empty() && !first) return;
    RegionStroke stroke;
    stroke.polygon = polygon;
    auto& labels = regions.populationOfLabel;
    const auto own = std::find(labels.begin(), labels.end(), int32_t(id));
    stroke.label = int32_t(own - labels.begin());
    if (own == labels.end()) labels.push_back(int32_t(id));
    for (size_t l = 0; from >= 0 && l < labels.size(); ++l)
        if (labels[l] == from) stroke.from.push_back(int32_t(l));
    regions.strokes.push_back(std::move(stroke));
}
}  // namespace

size_t Document::brush(const std::vector<float>& polygon, const std::string& name,
                       const std::vector<float>& xy, const std::string& onlyFrom,
                       bool xyIsEmbedSom) {
    if (polygon.size() < 6 || m_state.data.events() == 0) return 0;
    Populations next = m_state.populations;
    size_t id = 0;
    for (; id < next.groups.size(); ++id)
        if (next.groups[id].name == name) break;
    if (id == next.groups.size()) {
        if (id >= kMostPopulations) {
            m_log.add(LogEntry::Error, "too many populations (250); delete some first");
            return 0;
        }
        next.groups.push_back({name, paletteColour(id + 3)});
    }
    // Cells outside the gates are not drawn, so the lasso cannot take them; a split takes only
    // the cells of the population it splits.
    std::vector<float> shown = xy;
    size_t from = 0;
    for (; !onlyFrom.empty() && from < next.groups.size(); ++from)
        if (next.groups[from].name == onlyFrom) break;
    for (size_t i = 0; 2 * i + 1 < shown.size(); ++i) {
        const bool other =
            !onlyFrom.empty() && (i >= next.membership.size() || next.membership[i] != from + 1);
        if (!m_state.gating.contains(i) || other) shown[2 * i] = shown[2 * i + 1] = NAN;
    }
    // A split of a population that is gone (renamed, deleted, undone) or that moves nothing
    // leaves everything as it was.
    if (!onlyFrom.empty() && from == next.groups.size()) return 0;
    size_t count = paintPolygon(polygon, shown, uint8_t(id + 1), next.membership);
    if (!onlyFrom.empty() && count == 0) return 0;
    if (xyIsEmbedSom) {
        addStroke(next.regions, polygon, id, onlyFrom.empty() ? -1 : int32_t(from),
                  next.groups.size() == 1 && m_state.populations.groups.empty(),
                  m_state.model.count());
    } else if (!next.regions.empty()) {
        // A stroke on a polished picture says nothing of where EmbedSOM puts new cells.
        next.regions = {};
        m_log.add(LogEntry::Info,
                  "a lasso on the polished picture: the model labels new files by each "
                  "landmark's cells from now on, not by the strokes");
    }
    execute(std::make_unique<ChangeCommand<Populations>>(
        &State::populations, Part::Populations, m_state.populations, std::move(next),
        onlyFrom.empty() ? "Brush " + name : "Split " + onlyFrom));
    seal();
    if (m_state.colour.mode != ColourMode::Population) {
        ColourSettings c = m_state.colour;
        c.mode = ColourMode::Population;
        setColour(c);
        seal();
    }
    m_log.add(LogEntry::Info, "brushed " + std::to_string(count) + " cells into " + name);
    return count;
}

void Document::replacePopulations(Populations next, const std::string& label) {
    ColourSettings colour = m_state.colour;
    colour.mode = ColourMode::Population;
    execute(std::make_unique<PopulationsCommand>(
        PopulationsSnapshot{m_state.populations, m_state.colour},
        PopulationsSnapshot{std::move(next), colour}, label));
    seal();
}

void Document::mergePopulations(size_t from, size_t into) {
    const auto& groups = m_state.populations.groups;
    if (from >= groups.size() || into >= groups.size() || from == into) return;
    const std::string label = "Merge " + groups[from].name + " into " + groups[into].name;
    execute(std::make_unique<ChangeCommand<Populations>>(
        &State::populations, Part::Populations, m_state.populations,
        mergedGroups(m_state.populations, from, into), label));
    seal();
}

void Document::deletePopulation(size_t i) {
    if (i >= m_state.populations.groups.size()) return;
    const std::string name = m_state.populations.groups[i].name;
    execute(std::make_unique<ChangeCommand<Populations>>(
        &State::populations, Part::Populations, m_state.populations,
        withoutGroup(m_state.populations, i), "Delete " + name));
    seal();
}

void Document::editPopulation(size_t i, const Population& p) {
    if (i >= m_state.populations.groups.size()) return;
    Populations next = m_state.populations;
    next.groups[i] = p;
    execute(std::make_unique<ChangeCommand<Populations>>(
        &State::populations, Part::Populations, m_state.populations, std::move(next),
        "Edit " + p.name, "population" + std::to_string(i)));
}

void Document::setMetadata(SampleMetadata metadata) {
    ColourSettings colour = m_state.colour;
    if (!metadata.columns.empty()) colour.mode = ColourMode::Group, colour.groupColumn = 0;
    // Panels by a column of the old metadata would name another column of the new.
    ViewSettings view = m_state.view;
    view.panelsBy = -1;
    execute(std::make_unique<MetadataCommand>(
        MetadataSnapshot{m_state.metadata, m_state.colour, m_state.view},
        MetadataSnapshot{std::move(metadata), colour, view}, "Sample metadata"));
    seal();
}

// ---------------------------------------------------------------- gates

bool Document::setGates(GateSelection gates, const std::string& label) {
    Gating next;
    try {
        next = gatingOf(m_state.data, std::move(gates));
    } catch (const std::exception& e) {
        m_log.add(LogEntry::Error, label + ": " + e.what());
        return false;
    }
    for (const std::string& note : next.members.notes) m_log.add(LogEntry::Info, note);
    if (!next.gates.population.empty() && next.gates.population != m_state.gating.gates.population)
        m_log.add(LogEntry::Info, gatedSummary(next.kept, m_state.data.events(), next.gates));
    execute(std::make_unique<ChangeCommand<Gating>>(&State::gating, Part::Gates, m_state.gating,
                                                    std::move(next), label));
    seal();
    return true;
}

}  // namespace sepal::app
