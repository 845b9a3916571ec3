#pragma once
// A trainer that exists only in the tests, added through the registry alone (registerTrainer):
// sepal-cli embed's --landmarks and its batch run, and the app's Training window, take it with
// no other change. That is what the registry promises a new trainer.

#include <cstdint>
#include <random>
#include <string>

#include "core/knn/nearest_search.h"
#include "core/model/landmark_edit.h"
#include "core/train/trainer.h"
#include "core/train/trainer_entry.h"
#include "core/train/trainer_names.h"
#include "core/train/trainer_registry.h"

namespace sepal::test {

/// The test-only trainer's registry name.
inline constexpr const char* kTestTrainer = "test-pull";

/// Parameters of the test-only trainer.
struct PullParams {
    size_t steps = 0;   ///< steps of a run; 0: until stopped
    float rate = 0.5f;  ///< how far a landmark moves towards its point in a step
    uint64_t seed = 1;  ///< which points the landmarks move towards
};

/// Each step moves every unlocked landmark `rate` of the way towards a training point the seed
/// picks: data space moves, the 2D layout stays, as a landmark trainer's must.
class PullTrainer final : public Trainer {
  public:
    /// A trainer with these parameters.
    explicit PullTrainer(const PullParams& params) : m_params(params), m_rng(params.seed) {}
    std::string name() const override { return kTestTrainer; }
    bool step(LandmarkModel& model, const TrainingData& data) override {
        if (m_params.steps != 0 && m_done >= m_params.steps) return false;
        for (size_t l = 0; l < model.count() && data.n > 0; ++l) {
            const float* x = data.points + (m_rng() % data.n) * data.d;
            if (highLocked(model, l)) continue;
            float* h = model.highRow(l);
            for (size_t t = 0; t < data.d; ++t) h[t] += m_params.rate * (x[t] - h[t]);
        }
        ++model.highVersion;
        ++m_done;
        return m_params.steps == 0 || m_done < m_params.steps;
    }
    double progress() const override {
        return m_params.steps == 0 ? -1.0 : double(m_done) / double(m_params.steps);
    }

  private:
    PullParams m_params;
    std::mt19937_64 m_rng;
    size_t m_done = 0;
};

/// The test-only trainer's entry: sampled landmarks, 5 steps in embed, the UMAP-like layout
/// after them and EmbedSOM parameters {6, -1, 2} that no built-in entry has, so that a test can
/// tell that they come from the entry.
inline TrainerInfo pullTrainerEntry() {
    return trainerEntry(
        {.name = kTestTrainer,
         .description = "Test only: each landmark moves halfway to a random training point",
         .role = TrainerRole::Landmarks,
         .moves = TrainerSpace::Data,
         .init = TrainerInit::Sample,
         .batch = {{"steps", 5}},
         .followedBy = trainer_name::kUmap,
         .embed = {6, -1.0f, 2.0f},
         .shown = {{"rate", "Rate", ParamKind::Float, 0.01, 1.0, 0.5}}},
        PullParams{},
        [](auto& v, PullParams& p) {
            v("steps", p.steps);
            v("rate", p.rate);
            v("seed", p.seed);
        },
        [](const PullParams& p, NearestSearch&) { return new PullTrainer(p); });
}

/// The test-only trainer in the registry while the object lives: ctest runs each test in a
/// process of its own, but a test binary run whole shares one registry between its tests.
class ScopedPullTrainer {
  public:
    ScopedPullTrainer() { registerTrainer(pullTrainerEntry()); }
    ~ScopedPullTrainer() { unregisterTrainer(kTestTrainer); }
    ScopedPullTrainer(const ScopedPullTrainer&) = delete;
    ScopedPullTrainer& operator=(const ScopedPullTrainer&) = delete;
};

}  // namespace sepal::test
