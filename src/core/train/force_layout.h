#pragma once
// A force-directed layout of the 2D landmarks on their k-NN graph: springs along edges,
// soft repulsion between all pairs, damped motion; pinned landmarks stay and pull neighbours.

#include <cstdint>
#include <vector>

#include "core/train/trainer.h"
#include "core/train/trainer_names.h"

namespace sepal {

/// Parameters of the force-directed layout.
struct ForceParams {
    size_t k = 10;                 ///< graph neighbours; 0 = use the model's edges as they are
    float springLength = 0.0f;     ///< rest length; <= 0: the current median 2D spacing
    float spring = 1.0f;           ///< spring stiffness
    float repulsion = 0.5f;        ///< strength of the pairwise repulsion
    float damping = 0.85f;         ///< velocity kept per iteration (0..1): higher is smoother
    float timeStep = 0.1f;         ///< integration step
    size_t iterationsPerStep = 5;  ///< iterations per step() (each O(g^2))
    size_t iterations = 500;       ///< iterations of the run; 0 = run until stopped
    uint64_t seed = 1;             ///< separates landmarks that sit on one spot
};

/// The layout; it reads the current 2D positions and refines them (never restarts).
class ForceLayoutTrainer final : public Trainer {
  public:
    /// A layout with these parameters.
    explicit ForceLayoutTrainer(const ForceParams& params) : m_params(params) {}
    std::string name() const override { return trainer_name::kGraph; }
    bool step(LandmarkModel& model, const TrainingData& data) override;
    double progress() const override;
    /// The energy the forces descend: sum over edges of spring/2 (|l_i - l_j| - L)^2 plus
    /// repulsion L^2 / (1 + |l_i - l_j|^2 / L^2) over all pairs (L the rest length in use).
    double energy(const LandmarkModel& model) const;

  private:
    void prepare(LandmarkModel& model);

    ForceParams m_params;
    float m_length = 0.0f;
    size_t m_iter = 0;
    uint64_t m_graphVersion = ~uint64_t{0};
    size_t m_sinceGraph = 0;
    std::vector<float> m_velocity;
    std::vector<float> m_force;
};

}  // namespace sepal
