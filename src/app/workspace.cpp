#include "app/workspace.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>

#include "app/initial_model.h"
#include "app/recipes.h"
#include "app/training.h"
#include "core/common/error.h"
#include "core/io/spillover_file.h"
#include "core/model/landmark_edit.h"
#include "core/model/model_file.h"
#include "core/train/landmark_graph.h"
#include "core/train/som_trainer.h"

namespace sepal::app {

namespace {
constexpr size_t kTrainingSubsample = 50000;
constexpr size_t kMaxRecent = 10;
// Landmarks of the untrained start model shown while the recipe trains.
constexpr size_t kStartLandmarks = 64;
}  // namespace

Workspace::Workspace(const std::string& backendName)
    : m_sweeper(makeSweeper()), m_start(std::chrono::steady_clock::now()) {
    try {
        m_backend = makeBackend(backendName);
    } catch (const std::exception& e) {
        m_backend = makeBackend("cpu");
        m_backend.reason = std::string(e.what()) + "; using the CPU";
    }
    log(LogEntry::Info, "projection backend: " + m_backend.name + " (" + m_backend.reason + ")");
}

Workspace::~Workspace() = default;

double Workspace::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

void Workspace::log(LogEntry::Level level, const std::string& text) {
    m_log.push_back({level, text, seconds()});
    if (level == LogEntry::Error) {
        ++m_errors;
        // Also on the terminal: scripts and tests read it there.
        std::fprintf(stderr, "sepal: error: %s\n", text.c_str());
    }
    if (m_log.size() > 1000) m_log.erase(m_log.begin());
}

std::vector<std::string> Workspace::trainerNames() const {
    return availableTrainers();
}

double Workspace::trainingProgress() const {
    return m_trainer ? m_trainer->progress() : -1.0;
}

bool Workspace::idle() const {
    return m_sweeper->settled() && !m_training && !m_load && !m_recipe;
}

LandmarkModel Workspace::startModel() const {
    // A sample of the cells on their PCA plane: a fair first look while the recipe trains.
    return makeInitialModel(m_state.data.points, kStartLandmarks, 0, m_state.training.seed,
                            "kmeans");
}

void Workspace::addRecent(const std::string& path) {
    if (path.starts_with("synthetic:")) return;
    std::string abs = std::filesystem::absolute(path).lexically_normal().string();
    m_recent.erase(std::remove(m_recent.begin(), m_recent.end(), abs), m_recent.end());
    m_recent.insert(m_recent.begin(), abs);
    if (m_recent.size() > kMaxRecent) m_recent.resize(kMaxRecent);
}

// ---------------------------------------------------------------- files

void Workspace::openFiles(const std::vector<std::string>& paths, bool addAsSamples) {
    if (paths.empty()) return;
    if (paths.size() == 1 && isModelFile(paths.front())) {
        // A model file applies to the open data (the model of sepal-cli embed --model).
        try {
            openModel(paths.front());
        } catch (const std::exception& e) {
            log(LogEntry::Error, std::string("cannot open the model: ") + e.what());
        }
        return;
    }
    m_load = std::make_unique<LoadTask>(paths);
    m_loadAdds = addAsSamples;
    log(LogEntry::Info, "opening " + std::to_string(paths.size()) + " file(s): " + paths.front() +
                            (paths.size() > 1 ? ", ..." : ""));
}

void Workspace::cancelLoading() {
    if (!m_load) return;
    m_load->cancel();
    log(LogEntry::Info, "loading cancelled; what was open stays open");
}

void Workspace::openTables(std::vector<io::Table> tables, bool addAsSamples) {
    if (tables.empty()) return;
    // Build the new dataset aside, so a failure leaves what was open untouched.
    Dataset next;
    if (addAsSamples) next.tables = m_state.data.tables;
    for (auto& t : tables) {
        if (t.events() == 0) throw InputError(t.source + ": holds no events");
        for (const auto& w : t.warnings) log(LogEntry::Warning, t.source + ": " + w);
        next.tables.push_back(std::move(t));
    }
    TransformPipeline pipeline =
        addAsSamples && !m_state.data.tables.empty() ? m_state.pipeline : defaultPipeline(next);
    rebuildPoints(next, pipeline);
    if (next.columns.empty())
        throw InputError(next.tables.front().source + ": no channel to use; pick markers");
    for (const auto& t : next.tables) addRecent(t.source);
    pauseTraining();
    m_trainer.reset();
    m_recipe.reset();
    m_state.data = std::move(next);
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
    m_undo.clear();
    m_state.bump(Part::Data);
    m_state.model = startModel();
    m_untrained = true;
    m_state.bump(Part::Model);
    m_state.bump(Part::Populations);
    m_state.bump(Part::Colour);
    size_t total = m_state.data.events();
    log(LogEntry::Info, "opened " + std::to_string(m_state.data.samples.size()) + " sample(s), " +
                            std::to_string(total) + " events, " +
                            std::to_string(m_state.data.columns.size()) + " columns used");
    // The picture a user expects on open: the default recipe, trained at once.
    runRecipe(false);
}

void Workspace::dataChanged() {
    m_trainer.reset();
    // The sweeper gets its own copy of the points: it may read them on another thread while
    // the state changes.
    bool same = m_sweeper->positions().size() == 2 * m_state.data.events();
    m_sweeper->reset(std::make_shared<const Matrix>(m_state.data.points), same);
    // Training reads a fixed seeded subsample so that steps cost the same on any dataset size.
    const auto& pts = m_state.data.points;
    size_t n = pts.rows, d = pts.cols, m = std::min(n, kTrainingSubsample);
    m_trainSample.resize(m * d);
    std::mt19937_64 rng(m_state.training.seed);
    std::uniform_int_distribution<size_t> any(0, n ? n - 1 : 0);
    for (size_t i = 0; i < m; ++i) {
        size_t src = m == n ? i : any(rng);
        std::copy(pts.row(src), pts.row(src) + d, m_trainSample.begin() + long(i * d));
    }
}

// ---------------------------------------------------------------- frame

FrameUpdate Workspace::frame(double budgetMs) {
    FrameUpdate update;
    if (m_load && m_load->done()) {
        auto task = std::move(m_load);
        if (!task->error().empty()) {
            log(LogEntry::Error,
                "cannot open: " + task->error() +
                    (m_state.data.events() > 0
                         ? " (what was open stays open)"
                         : " (nothing is open: choose a file in the Open window)"));
        } else if (!task->cancelled()) {
            try {
                openTables(task->takeTables(), m_loadAdds);
            } catch (const std::exception& e) {
                log(LogEntry::Error, std::string("cannot open: ") + e.what());
            }
        }
    }
    pollRecipe();
    if (m_state.version(Part::Data) != m_dataSeen) {
        m_dataSeen = m_state.version(Part::Data);
        dataChanged();
    }
    m_stats.trainMs = 0;
    if (m_training) trainStep(budgetMs * 0.4);
    double left = std::max(1.0, budgetMs - m_stats.trainMs);
    try {
        if (!m_external)
            m_sweeper->step(m_state.model, m_state.embed, *m_backend.projector, left,
                            update.positions);
    } catch (const std::exception& e) {
        log(LogEntry::Error, std::string("projection failed: ") + e.what());
        m_sweeper->invalidate();
    }
    if (m_pointsSeen != m_state.data.events()) {
        m_pointsSeen = m_state.data.events();
        update.allPositions = true;
    }
    if (!m_external) {
        m_stats.projectMs = m_sweeper->lastStepMs();
        m_stats.fullSweepMs = m_sweeper->fullSweepMs();
    }
    m_stats.sweepProgress = m_sweeper->progress();
    m_stats.sweeps = m_sweeper->sweeps();
    m_stats.projected = m_sweeper->projectedTotal();
    uint64_t colourKey = m_state.version(Part::Colour) * 1000003 +
                         m_state.version(Part::Data) * 31 + m_state.version(Part::Populations);
    bool densityStale =
        m_state.colour.mode == ColourMode::Density && m_sweeper->sweeps() != m_sweepsSeen;
    if (colourKey != m_colourSeen || densityStale || update.allPositions) {
        m_colourSeen = colourKey;
        m_sweepsSeen = m_sweeper->sweeps();
        m_key = computeColours(m_state.data, m_state.colour, m_state.populations,
                               m_sweeper->positions(), m_rgba);
        update.colours = true;
    }
    return update;
}

void Workspace::useExternalProjection(bool on) {
    m_external = on;
    m_sweeper->setPaused(on);
    if (!on) m_sweeper->invalidate();
}

void Workspace::acceptPositions(const float* xy) {
    if (m_sweeper->positions().size() != 2 * m_state.data.events()) return;
    m_sweeper->accept(xy, m_state.model);
    m_stats.sweepProgress = m_sweeper->progress();  // settled now, not a frame later
}

// ---------------------------------------------------------------- edits

bool Workspace::undo() {
    if (m_training) pauseTraining();
    return m_undo.undo(m_state);
}

bool Workspace::redo() {
    if (m_training) pauseTraining();
    return m_undo.redo(m_state);
}

void Workspace::execute(std::unique_ptr<Command> command) {
    m_undo.push(std::move(command), m_state);
}

namespace {
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
        if (model.dim != s.data.points.cols || model.count() == 0)
            model = makeInitialModel(s.data.points, kStartLandmarks, 0, s.training.seed, "kmeans");
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

void Workspace::setPipeline(const TransformPipeline& pipeline) {
    if (m_state.data.tables.empty() || samePipeline(pipeline, m_state.pipeline)) return;
    if (pipeline.steps.empty()) {
        log(LogEntry::Error, "at least one marker must be used");
        return;
    }
    pauseTraining();
    m_recipe.reset();
    try {
        pipeline.validate();
        execute(std::make_unique<PipelineCommand>(
            PipelineSnapshot{m_state.pipeline, m_state.model, m_state.embed},
            PipelineSnapshot{pipeline, LandmarkModel{}, m_state.embed}, "Change transform"));
    } catch (const std::exception& e) {
        log(LogEntry::Error, e.what());
        return;
    }
    seal();
    m_untrained = true;
    // The landmarks of the old space mean nothing in the new one: train the recipe again.
    runRecipe(true);
}

void Workspace::loadSpillover(const std::string& path) {
    if (m_state.data.tables.empty()) {
        log(LogEntry::Error, "open a file before loading a spillover matrix");
        return;
    }
    try {
        TransformPipeline next = m_state.pipeline;
        next.compensation.source = CompensationStep::Source::Stored;
        next.compensation.spillover = io::readSpilloverFile(path);
        // Check it against the data now, so a matrix of other channels is refused with its names.
        next.apply(m_state.data.tables.front());
        setPipeline(next);
        log(LogEntry::Info, "compensating with " + path);
    } catch (const std::exception& e) {
        log(LogEntry::Error, e.what());
    }
}

void Workspace::openModel(const std::string& path) {
    if (m_state.data.tables.empty()) throw InputError("open a file before opening a model");
    LoadedModel loaded = loadModel(path);
    TransformPipeline pipeline = TransformPipeline::fromJson(loaded.transform);
    if (pipeline.columns() != loaded.columns)
        throw InputError(path + ": the transform's columns differ from the model's; re-save it");
    validateParams(loaded.params, loaded.model.count());
    // Try the pipeline on the open data first: a missing channel leaves everything as it was.
    Dataset probe;
    probe.tables = m_state.data.tables;
    rebuildPoints(probe, pipeline);
    pauseTraining();
    m_recipe.reset();
    execute(std::make_unique<PipelineCommand>(
        PipelineSnapshot{m_state.pipeline, m_state.model, m_state.embed},
        PipelineSnapshot{pipeline, loaded.model, loaded.params}, "Open model " + path));
    seal();
    m_untrained = false;
    ++m_fitRequests;
    log(LogEntry::Info,
        "opened model " + path + " (" + std::to_string(loaded.model.count()) + " landmarks)");
}

void Workspace::setColour(const ColourSettings& s, const std::string& mergeKey) {
    if (s == m_state.colour) return;
    execute(std::make_unique<ChangeCommand<ColourSettings>>(
        &State::colour, Part::Colour, m_state.colour, s, "Change colouring", mergeKey));
}

void Workspace::setView(const ViewSettings& s, const std::string& mergeKey) {
    if (s == m_state.view) return;
    execute(std::make_unique<ChangeCommand<ViewSettings>>(&State::view, Part::View, m_state.view, s,
                                                          "Change drawing", mergeKey));
}

void Workspace::setTraining(const TrainingSettings& s, const std::string& mergeKey) {
    if (s == m_state.training) return;
    // A running SOM takes new radius and rate at once (manual mode); other changes apply to the
    // next run.
    if (auto* som = dynamic_cast<SomTrainer*>(m_trainer.get());
        som && m_training &&
        (s.sigma != m_state.training.sigma || s.alpha != m_state.training.alpha))
        som->setManual(s.sigma, s.alpha);
    else if (!m_training)
        m_trainer.reset();
    execute(std::make_unique<ChangeCommand<TrainingSettings>>(
        &State::training, Part::Training, m_state.training, s, "Change training", mergeKey));
}

void Workspace::setEmbed(const EmbedParams& p, const std::string& mergeKey) {
    try {
        validateParams(p, m_state.model.count());
    } catch (const std::exception& e) {
        log(LogEntry::Error, e.what());
        return;
    }
    // EmbedSOM parameters change every position, like a model edit.
    auto cmd = std::make_unique<ChangeCommand<EmbedParams>>(
        &State::embed, Part::Model, m_state.embed, p, "Change projection", mergeKey);
    execute(std::move(cmd));
}

void Workspace::replaceModel(const LandmarkModel& after, const std::string& label) {
    execute(std::make_unique<ChangeCommand<LandmarkModel>>(&State::model, Part::Model,
                                                           m_state.model, after, label));
    seal();
}

void Workspace::beginLandmarkDrag() {
    m_dragBefore = std::make_unique<LandmarkModel>(m_state.model);
}

void Workspace::dragLandmarks(const std::vector<size_t>& indices, const std::vector<float>& xy) {
    for (size_t i = 0; i < indices.size(); ++i) {
        size_t l = indices[i];
        if (l >= m_state.model.count()) continue;
        m_state.model.low[2 * l] = xy[2 * i];
        m_state.model.low[2 * l + 1] = xy[2 * i + 1];
    }
    ++m_state.model.lowVersion;
}

void Workspace::endLandmarkDrag(const std::string& label) {
    if (!m_dragBefore) return;
    auto cmd = std::make_unique<ChangeCommand<LandmarkModel>>(
        &State::model, Part::Model, std::move(*m_dragBefore), m_state.model, label);
    m_dragBefore.reset();
    m_undo.record(std::move(cmd));
    seal();
}

void Workspace::addLandmark(float x, float y) {
    if (m_state.model.count() == 0) return;
    LandmarkModel next = m_state.model;
    std::vector<float> high(next.dim);
    fitHighFromLow(next, x, y, 3, high.data());
    size_t id = next.add(high.data(), x, y);
    if (!next.edges.empty()) buildLandmarkGraph(next, size_t(std::max(1, m_state.training.graphK)));
    replaceModel(next, "Add landmark " + std::to_string(id));
}

void Workspace::removeLandmarks(std::vector<size_t> indices) {
    std::sort(indices.rbegin(), indices.rend());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    LandmarkModel next = m_state.model;
    size_t removed = 0;
    for (size_t l : indices)
        if (l < next.count() && next.count() > 4) next.remove(l), ++removed;
    if (removed == 0) {
        log(LogEntry::Warning, "nothing removed (a model keeps at least 4 landmarks)");
        return;
    }
    const std::string label = removed == 1 ? "Remove landmark " + std::to_string(indices.front())
                                           : "Remove " + std::to_string(removed) + " landmarks";
    // k must not exceed the landmark count; lowering it is part of the same undo step.
    EmbedParams params = m_state.embed;
    if (params.k > int(next.count())) {
        params.k = int(next.count());
        log(LogEntry::Warning, "k lowered to the landmark count, " + std::to_string(params.k));
    }
    execute(std::make_unique<ModelCommand>(ModelSnapshot{m_state.model, m_state.embed},
                                           ModelSnapshot{std::move(next), params}, label));
    seal();
}

void Workspace::setLocked(const std::vector<size_t>& indices, bool locked) {
    LandmarkModel next = m_state.model;
    for (size_t l : indices)
        if (l < next.count()) sepal::setLocked(next, l, locked ? kLockBoth : 0);
    replaceModel(next, locked ? "Lock landmarks" : "Unlock landmarks");
}

void Workspace::resetModel() {
    pauseTraining();
    replaceModel(startModel(), "Reset model");
    m_untrained = true;
}

// ---------------------------------------------------------------- populations

namespace {
bool inside(const std::vector<float>& poly, float x, float y) {
    bool in = false;
    size_t m = poly.size() / 2;
    for (size_t i = 0, j = m - 1; i < m; j = i++) {
        float xi = poly[2 * i], yi = poly[2 * i + 1], xj = poly[2 * j], yj = poly[2 * j + 1];
        if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) in = !in;
    }
    return in;
}
}  // namespace

size_t Workspace::brush(const std::vector<float>& polygon, const std::string& name) {
    if (polygon.size() < 6 || m_state.data.events() == 0) return 0;
    Populations next = m_state.populations;
    size_t id = 0;
    for (; id < next.groups.size(); ++id)
        if (next.groups[id].name == name) break;
    if (id == next.groups.size()) {
        if (id >= 250) {
            log(LogEntry::Error, "too many populations (250); delete some first");
            return 0;
        }
        next.groups.push_back({name, paletteColour(id + 3)});
    }
    float minX = polygon[0], maxX = polygon[0], minY = polygon[1], maxY = polygon[1];
    for (size_t i = 0; i < polygon.size(); i += 2) {
        minX = std::min(minX, polygon[i]), maxX = std::max(maxX, polygon[i]);
        minY = std::min(minY, polygon[i + 1]), maxY = std::max(maxY, polygon[i + 1]);
    }
    const auto& xy = m_sweeper->positions();
    size_t count = 0;
    for (size_t i = 0; i < m_state.data.events(); ++i) {
        float x = xy[2 * i], y = xy[2 * i + 1];
        if (x < minX || x > maxX || y < minY || y > maxY || !inside(polygon, x, y)) continue;
        next.membership[i] = uint8_t(id + 1);
        ++count;
    }
    execute(std::make_unique<ChangeCommand<Populations>>(&State::populations, Part::Populations,
                                                         m_state.populations, std::move(next),
                                                         "Brush " + name));
    seal();
    if (m_state.colour.mode != ColourMode::Population) {
        ColourSettings c = m_state.colour;
        c.mode = ColourMode::Population;
        setColour(c);
        seal();
    }
    log(LogEntry::Info, "brushed " + std::to_string(count) + " cells into " + name);
    return count;
}

void Workspace::deletePopulation(size_t i) {
    if (i >= m_state.populations.groups.size()) return;
    Populations next = m_state.populations;
    std::string name = next.groups[i].name;
    next.groups.erase(next.groups.begin() + long(i));
    for (auto& m : next.membership) {
        if (m == i + 1)
            m = 0;
        else if (m > i + 1)
            --m;
    }
    execute(std::make_unique<ChangeCommand<Populations>>(&State::populations, Part::Populations,
                                                         m_state.populations, std::move(next),
                                                         "Delete " + name));
    seal();
}

void Workspace::editPopulation(size_t i, const Population& p) {
    if (i >= m_state.populations.groups.size()) return;
    Populations next = m_state.populations;
    next.groups[i] = p;
    execute(std::make_unique<ChangeCommand<Populations>>(
        &State::populations, Part::Populations, m_state.populations, std::move(next),
        "Edit " + p.name, "population" + std::to_string(i)));
}

std::vector<size_t> Workspace::populationSizes() const {
    std::vector<size_t> sizes(m_state.populations.groups.size(), 0);
    for (uint8_t m : m_state.populations.membership)
        if (m > 0 && m <= sizes.size()) ++sizes[m - 1];
    return sizes;
}

// ---------------------------------------------------------------- training

void Workspace::runRecipe(bool undoable) {
    if (m_state.data.events() == 0) return;
    pauseTraining();
    const Recipe* recipe = findRecipe(m_state.training.recipe);
    if (recipe && !recipe->trainsNewModel) {
        // A drawn map trains the landmarks the user placed, with the SOM on their layout.
        TrainingSettings t = m_state.training;
        t.trainer = "som";
        setTraining(t);
        m_untrained = false;
        startTraining();
        return;
    }
    try {
        EmbedSettings settings = recipeSettings(m_state.training);
        if (m_state.data.events() < settings.landmarks.count)
            throw InputError("the recipe asks for " + std::to_string(settings.landmarks.count) +
                             " landmarks but the data has " +
                             std::to_string(m_state.data.events()) +
                             " events; ask for fewer landmarks in the Training window");
        m_recipe = std::make_unique<RecipeTask>(std::make_shared<const Matrix>(m_state.data.points),
                                                settings, recipe->title);
        m_recipeUndoable = undoable;
        log(LogEntry::Info, "training " + recipe->title + " (sepal-cli embed " +
                                recipeCommandLine(m_state.training) + ")");
    } catch (const std::exception& e) {
        log(LogEntry::Error, std::string("cannot train: ") + e.what());
    }
}

void Workspace::cancelRecipe() {
    if (!m_recipe) return;
    m_recipe.reset();
    log(LogEntry::Info, "training cancelled; the landmarks stay as they were");
}

void Workspace::pollRecipe() {
    if (!m_recipe || !m_recipe->done()) return;
    auto task = std::move(m_recipe);
    if (!task->error().empty()) {
        log(LogEntry::Error, "training failed: " + task->error());
        return;
    }
    auto model = task->takeModel();
    if (!model) return;
    model->touch();
    const EmbedParams params = task->settings().params;
    if (m_recipeUndoable) {
        execute(std::make_unique<ModelCommand>(ModelSnapshot{m_state.model, m_state.embed},
                                               ModelSnapshot{std::move(*model), params},
                                               "Train " + task->title()));
        seal();
    } else {
        m_state.model = std::move(*model);
        m_state.embed = params;
        m_state.bump(Part::Model);
    }
    m_untrained = false;
    ++m_fitRequests;
    log(LogEntry::Info,
        "trained " + task->title() + ": " + std::to_string(m_state.model.count()) + " landmarks");
}

void Workspace::startTraining() {
    if (m_training || m_state.data.events() == 0) return;
    const std::string& t = m_state.training.trainer;
    if (m_untrained && (t == "tsne" || t == "umap" || t == "graph"))
        log(LogEntry::Warning, "the landmarks are not trained yet: " + t +
                                   " lays out an untrained start; run a recipe first for a "
                                   "meaningful picture");
    if (!m_trainer) {
        try {
            m_trainer = createTrainer(m_state.training, *m_backend.search);
        } catch (const std::exception& e) {
            log(LogEntry::Error, std::string("cannot train: ") + e.what());
            return;
        }
    }
    m_trainBefore = std::make_unique<LandmarkModel>(m_state.model);
    m_training = true;
    if (t != "tsne" && t != "umap" && t != "graph") m_untrained = false;
    // A t-SNE or UMAP layout scatters the graph's edges into a mesh of crossing lines.
    if ((t == "tsne" || t == "umap") && m_state.view.showGraph) {
        m_state.view.showGraph = false;
        m_state.bump(Part::View);
    }
    log(LogEntry::Info, "training with " + m_trainer->name());
}

void Workspace::pauseTraining() {
    if (!m_training) return;
    m_training = false;
    if (m_trainBefore) {
        m_undo.record(std::make_unique<ChangeCommand<LandmarkModel>>(
            &State::model, Part::Model, std::move(*m_trainBefore), m_state.model, "Train"));
        m_trainBefore.reset();
        seal();
    }
}

void Workspace::trainStep(double budgetMs) {
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    TrainingData data{m_trainSample.data(),
                      m_trainSample.size() / std::max<size_t>(1, m_state.data.points.cols),
                      m_state.data.points.cols};
    bool more = true;
    try {
        do {
            more = m_trainer->step(m_state.model, data);
            ++m_state.model.highVersion, ++m_state.model.lowVersion;
        } while (more && std::chrono::duration<double, std::milli>(Clock::now() - start).count() <
                             budgetMs);
    } catch (const std::exception& e) {
        log(LogEntry::Error, std::string("training stopped: ") + e.what());
        more = false;
    }
    m_stats.trainMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!more) {
        pauseTraining();
        m_trainer.reset();
        log(LogEntry::Info, "training finished");
    }
}

}  // namespace sepal::app
