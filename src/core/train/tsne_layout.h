#pragma once
// Exact t-SNE of the landmarks (g up to a few thousand), refining the current 2D layout.

#include <cstdint>
#include <vector>

#include "core/train/layout_frame.h"
#include "core/train/trainer.h"
#include "core/train/trainer_names.h"

namespace sepal {

/// Parameters of the landmark t-SNE.
struct TsneParams {
    float perplexity = 30.0f;        ///< effective neighbours; clamped to (g - 1) / 3
    float exaggeration = 12.0f;      ///< early exaggeration factor
    size_t exaggerationIters = 250;  ///< iterations with exaggeration and momentum 0.5
    size_t iterations = 1000;        ///< total iterations
    float learningRate = 0.0f;       ///< <= 0: max(g / exaggeration / 4, 50)
    float startStd = 1e-4f;          ///< spread the current layout is scaled to at the start
    size_t iterationsPerStep = 10;   ///< iterations per step() (each O(g^2))
    uint64_t seed = 1;               ///< used only when the current layout has no spread
};

/// Exact t-SNE (perplexity-calibrated P, Student-t Q, momentum and gains) of the data-space
/// landmarks; writes 2D positions at the original centre and spread; pinned landmarks stay.
class TsneLayoutTrainer final : public Trainer {
  public:
    /// A t-SNE layout with these parameters.
    explicit TsneLayoutTrainer(const TsneParams& params) : m_params(params) {}
    std::string name() const override { return trainer_name::kTsne; }
    bool step(LandmarkModel& model, const TrainingData& data) override;
    double progress() const override;
    bool supervise(std::vector<int32_t> landmarkLabels, float strength) override;
    /// KL(P || Q) of the current layout (no exaggeration); 0 before the first step.
    double divergence() const;

    /// Builds the similarities and takes the current layout as the start; step() calls it
    /// on first use (and when g changes), tests call it to measure the starting loss.
    void prepare(const LandmarkModel& model);

  private:
    TsneParams m_params;
    LayoutFrame m_frame;
    size_t m_g = 0;
    size_t m_iter = 0;
    std::vector<float> m_p;         // g x g joint probabilities
    std::vector<int32_t> m_labels;  // per landmark, for a supervised layout (empty: none)
    float m_strength = 0.0f;
    std::vector<float> m_y, m_update, m_gains, m_grad, m_rep, m_rowZ;
    std::vector<float> m_xs, m_ys;  // m_y as two columns, for the gradient's sums
};

/// Conditional probabilities of one point: p_j proportional to exp(-beta sqdist_j), beta chosen
/// by bisection so that the entropy is log(perplexity). sqdist: m values; writes m values.
void calibrateRow(const float* sqdist, size_t m, float perplexity, float* p);

}  // namespace sepal
