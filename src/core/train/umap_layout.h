#pragma once
// A UMAP-like layout of the landmarks: fuzzy k-NN graph, SGD with negative sampling, refining
// the current 2D layout.

#include <cstdint>
#include <vector>

#include "core/train/layout_frame.h"
#include "core/train/sampling.h"
#include "core/train/trainer.h"
#include "core/train/trainer_names.h"

namespace sepal {

/// Parameters of the UMAP-like layout.
struct UmapParams {
    size_t k = 15;               ///< neighbours of the fuzzy graph (clamped to g - 1)
    float minDist = 0.1f;        ///< how tightly points may pack in 2D
    float spread = 1.0f;         ///< scale of the 2D falloff
    size_t epochs = 300;         ///< SGD epochs
    size_t negativeSamples = 5;  ///< repulsive samples per attractive one
    float learningRate = 1.0f;   ///< initial SGD rate (falls linearly to 0)
    float startStd = 3.0f;       ///< spread the current layout is scaled to at the start
    size_t epochsPerStep = 1;    ///< epochs per step()
    uint64_t seed = 1;           ///< negative sampling
};

/// The curve 1 / (1 + a d^(2b)) fitted (least squares) to 1 for d < minDist and
/// exp(-(d - minDist) / spread) beyond.
struct CurveParams {
    double a = 0.0;  ///< fitted a
    double b = 0.0;  ///< fitted b
};
/// Fits a and b as UMAP does (minDist 0.1, spread 1 gives a = 1.577, b = 0.895).
CurveParams fitCurve(double minDist, double spread);

/// UMAP's membership strengths of one point's m neighbours (dist: ascending distances):
/// exp(-(dist - rho) / sigma), rho the nearest non-zero distance, sigma found by Newton's steps
/// inside a bisection's bracket so that they sum to `target` (log2 of the neighbour count).
/// Writes m weights.
void membershipStrengths(const double* dist, size_t m, double target, float* w);

/// The UMAP-like layout trainer.
class UmapLayoutTrainer final : public Trainer {
  public:
    /// A layout with these parameters.
    explicit UmapLayoutTrainer(const UmapParams& params) : m_params(params), m_rng(params.seed) {}
    std::string name() const override { return trainer_name::kUmap; }
    bool step(LandmarkModel& model, const TrainingData& data) override;
    double progress() const override;
    bool supervise(std::vector<int32_t> landmarkLabels, float strength) override;
    /// Fuzzy cross-entropy between the graph weights and the 2D similarities, over all pairs
    /// of the current layout (O(g^2)); 0 before the first step.
    double crossEntropy() const;

    /// Builds the similarities and takes the current layout as the start; step() calls it
    /// on first use (and when g changes), tests call it to measure the starting loss.
    void prepare(const LandmarkModel& model);

  private:
    UmapParams m_params;
    SplitMix m_rng;
    LayoutFrame m_frame;
    CurveParams m_curve;
    size_t m_g = 0;
    size_t m_epoch = 0;
    std::vector<float> m_y;
    // Directed edges (both directions of each symmetric pair) with their sampling schedule.
    std::vector<uint32_t> m_head, m_tail;
    std::vector<float> m_weight, m_perSample, m_nextSample, m_perNegative, m_nextNegative;
    std::vector<float> m_dense;     // g x g symmetric weights, for crossEntropy
    std::vector<int32_t> m_labels;  // per landmark, for a supervised layout (empty: none)
    float m_strength = 0.0f;
};

}  // namespace sepal
