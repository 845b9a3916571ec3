// The scheduler's training: recipes on a worker thread, and the refining trainer's steps within
// each frame's budget.
#include <chrono>

#include "app/recipes.h"
#include "app/scheduler.h"
#include "app/training.h"
#include "core/common/error.h"
#include "core/train/som_trainer.h"
#include "core/train/topology.h"
#include "core/train/trainer_registry.h"

namespace sepal::app {

namespace {
// Trainers that lay the landmarks out in 2D rather than train them in data space (the registry
// says which).
bool laysOut(const std::string& trainer) {
    const TrainerInfo* info = findTrainer(trainer);
    return info && info->moves == TrainerSpace::Layout;
}

// Layouts whose picture is the graph's own (the registry says which).
bool drawsGraph(const std::string& trainer) {
    const TrainerInfo* info = findTrainer(trainer);
    return info && info->drawsGraph;
}
}  // namespace

double Scheduler::trainingProgress() const {
    return m_trainer ? m_trainer->progress() : -1.0;
}

void Scheduler::runRecipe(bool undoable) {
    const State& state = m_document.state();
    if (state.data.events() == 0) return;
    pauseTraining();
    const Recipe* recipe = findRecipe(state.training.recipe);
    if (recipe && !recipe->trainsNewModel) {
        // A drawn map trains the landmarks the user placed, with its recipe's trainer (the SOM
        // on their layout).
        TrainingSettings t = state.training;
        t.trainer = recipe->landmarks;
        retune(t);
        m_document.setTraining(t);
        m_document.markTrained();
        startTraining();
        return;
    }
    try {
        EmbedSettings settings = recipeSettings(state.training);
        // The recipe trains on the cells inside the gates, as sepal-cli embed --gates does.
        auto points = std::make_shared<const Matrix>(gatedRows(state.data.points, state.gating));
        // Balanced: each sample gives the same number of training events, as embed --balanced.
        if (state.training.balanced && state.data.samples.size() > 1)
            for (size_t i : state.gating.events(state.data.events()))
                settings.balanceGroups.push_back(int32_t(state.data.sampleOf[i]));
        if (!state.training.supervise.empty() && supervisable(state.training)) {
            settings.supervision = supervisionLabels(state);
            settings.supervisionStrength = state.training.supervisionStrength;
        }
        if (points->rows < settings.landmarks.count)
            throw InputError("the recipe asks for " + std::to_string(settings.landmarks.count) +
                             " landmarks but " + std::to_string(points->rows) +
                             " events are in the data and its gates; ask for fewer landmarks "
                             "in the Training window");
        m_recipe = std::make_unique<RecipeTask>(std::move(points), settings, recipe->title);
        m_recipeUndoable = undoable;
        m_log.add(LogEntry::Info, "training " + recipe->title + " (sepal-cli embed " +
                                      recipeCommandLine(state.training) + ")");
    } catch (const std::exception& e) {
        m_log.add(LogEntry::Error, std::string("cannot train: ") + e.what());
    }
}

void Scheduler::cancelRecipe() {
    if (!m_recipe) return;
    m_recipe.reset();
    m_log.add(LogEntry::Info, "training cancelled; the landmarks stay as they were");
}

void Scheduler::stopModelWork() {
    pauseTraining();
    m_recipe.reset();
}

void Scheduler::pollRecipe() {
    if (!m_recipe || !m_recipe->done()) return;
    auto task = std::move(m_recipe);
    if (!task->error().empty()) {
        m_log.add(LogEntry::Error, "training failed: " + task->error());
        return;
    }
    auto model = task->takeModel();
    if (!model) return;
    model->touch();
    m_document.adoptTrained(std::move(*model), task->settings().params, "Train " + task->title(),
                            m_recipeUndoable);
    // A paused trainer's schedule and map spacing belonged to the model just replaced.
    if (!m_training) m_trainer.reset();
    m_log.add(LogEntry::Info, "trained " + task->title() + ": " +
                                  std::to_string(m_document.state().model.count()) + " landmarks");
    // As sepal-cli embed says it: cells with a missing value train nothing but are still placed.
    if (const size_t skipped = task->skippedNonFinite(); skipped > 0)
        m_log.add(LogEntry::Warning, std::to_string(skipped) +
                                         " events with a missing (NaN or infinite) value were left "
                                         "out of training; the picture places them by their "
                                         "other values");
}

void Scheduler::retune(const TrainingSettings& s) {
    const TrainingSettings& now = m_document.state().training;
    if (s == now) return;
    // A running SOM takes new radius and rate at once (manual mode); other changes apply to the
    // next run.
    if (auto* som = dynamic_cast<SomTrainer*>(m_trainer.get());
        som && m_training && (s.sigma != now.sigma || s.alpha != now.alpha))
        som->setManual(s.sigma * m_mapSpacing, s.alpha);
    else if (!m_training)
        m_trainer.reset();
}

void Scheduler::startTraining() {
    const State& state = m_document.state();
    if (m_training || state.data.events() == 0) return;
    const std::string& t = state.training.trainer;
    if (m_document.untrained() && laysOut(t))
        m_log.add(LogEntry::Warning, "the landmarks are not trained yet: " + t +
                                         " lays out an untrained start; run a recipe first for a "
                                         "meaningful picture");
    if (!makeTrainer()) return;
    m_trainBefore = std::make_unique<LandmarkModel>(state.model);
    m_training = true;
    m_steppedAhead = false;  // a new run's first frame takes a step of its own
    if (!laysOut(t)) m_document.markTrained();
    // A layout other than the graph's own (t-SNE, UMAP) scatters the graph's edges into a mesh
    // of crossing lines.
    if (laysOut(t) && !drawsGraph(t)) m_document.showGraph(false);
    m_log.add(LogEntry::Info, "training with " + m_trainer->name());
}

bool Scheduler::makeTrainer() {
    if (m_trainer) return true;
    const State& state = m_document.state();
    try {
        m_mapSpacing = medianMapSpacing(state.model);
        m_trainer = createTrainer(state.training, *m_backend.search, m_mapSpacing);
        return true;
    } catch (const std::exception& e) {
        m_log.add(LogEntry::Error, std::string("cannot train: ") + e.what());
        return false;
    }
}

void Scheduler::pauseTraining() {
    if (!m_training) return;
    m_training = false;
    m_steppedAhead = false;  // a step run ahead that ended the run is nobody's next step
    if (m_trainBefore) {
        LandmarkModel before = std::move(*m_trainBefore);
        m_trainBefore.reset();
        m_document.recordModelEdit(std::move(before), "Train");
    }
}

void Scheduler::trainStep(double budgetMs) {
    // New data dropped the trainer of the old (dataChanged) under a run started for the new
    // one (a drawn map trained again after a change of the markers): made again for the new.
    if (!makeTrainer()) {
        pauseTraining();
        return;
    }
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    const size_t d = m_document.state().data.points.cols;
    TrainingData data{m_trainSample.data(), m_trainSample.size() / std::max<size_t>(1, d), d};
    // k-means and the batch SOM step over every cell where the backend keeps them all.
    // The device projection's cells are the steps' to copy once it took this data (not in the
    // frame that changed it, which trains before it projects).
    const bool resident = m_driver != m_cpu.get() && m_driver->holdsCells(m_document.state());
    bool everyCell = m_wholeData->attach(*m_trainer, m_document.state(), data.n, resident);
    LandmarkModel& model = m_document.liveModel();
    bool more = true;
    const WholeDataFigures before = m_wholeData->figures();
    try {
        do {
            more = m_trainer->step(model, data);
            model.touch();
        } while (more && std::chrono::duration<double, std::milli>(Clock::now() - start).count() <
                             budgetMs);
    } catch (const std::exception& e) {
        if (everyCell) {
            // The device failed (out of memory, ...): the run goes on over the subsample.
            m_wholeData->fail(*m_trainer, e.what(), data.n);
            everyCell = false;
        } else {
            m_log.add(LogEntry::Error, std::string("training stopped: ") + e.what());
            more = false;
        }
    }
    m_stats.trainMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    m_stats.trainEveryCell = everyCell;
    m_stats.trainCells = everyCell ? m_wholeData->cells() : data.n;
    // What the device did in this frame's steps (none after a failure, which dropped them).
    m_stats.trainDevice = everyCell ? m_wholeData->figures().since(before) : WholeDataFigures{};
    if (!more) {
        pauseTraining();
        m_trainer.reset();
        m_log.add(LogEntry::Info, "training finished");
    }
}

}  // namespace sepal::app
