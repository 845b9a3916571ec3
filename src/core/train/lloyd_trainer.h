#pragma once
// Lloyd's k-means of the landmarks in data space: each iteration assigns every point to its
// nearest landmark, then moves each landmark to the mean of its points. The registry's "kmeans".

#include <cstdint>
#include <memory>
#include <vector>

#include "core/knn/nearest_search.h"
#include "core/train/trainer.h"

namespace sepal {

/// Parameters of Lloyd's k-means.
struct LloydParams {
    size_t epochs = 10;     ///< iterations (passes over the points); 0: none, the start stays
    size_t stepPoints = 0;  ///< points assigned per step(); 0: one whole iteration per step
    uint64_t seed = 1;      ///< taken as every trainer takes it; the iterations draw nothing
};

/// Lloyd's sums over one pass, point by point in order: per landmark the sum and the number of
/// the points nearest to it, and the objective.
class LloydSums {
  public:
    /// Starts a pass for g landmarks of d dimensions.
    void reset(size_t g, size_t d);
    /// Adds points first .. first + count - 1 of `points` (rows of d), nearest to idx[i] at
    /// squared distance sq[i].
    void add(const float* points, size_t first, size_t count, const uint32_t* idx, const float* sq);
    /// Moves every unlocked landmark with points to their mean; returns the objective (the sum
    /// of squared distances of the pass's assignment).
    double moveLandmarks(LandmarkModel& model) const;
    /// The number of landmarks the pass counts for.
    size_t landmarks() const { return m_counts.size(); }

  private:
    size_t m_d = 0;
    std::vector<double> m_sums;
    std::vector<size_t> m_counts;
    double m_objective = 0.0;
};

/// One Lloyd iteration over all points: assign each to its nearest landmark, then move every
/// unlocked landmark with points to their mean. Returns the objective (sum of squared distances)
/// of the assignment, i.e. of the landmarks before the move. Thread-count independent.
/// `assigner` (from search.lloydAssigner for data's points; may be null) finds the same nearest
/// landmarks faster over a run of steps.
double lloydStep(LandmarkModel& model, const TrainingData& data, NearestSearch& search,
                 LloydAssigner* assigner = nullptr);

/// Lloyd's k-means as a Trainer. With stepPoints 0 each step is one lloydStep, whose assigner
/// keeps its bounds from one iteration to the next (sepal-cli embed: the points stay the same,
/// so the bounds stay true); with stepPoints > 0 a step assigns that many points and the
/// landmarks move when a pass is complete (the app: a bounded step per frame, and the bounds
/// would not survive the training sample being refilled in place). Both give the same landmarks.
/// A pass starts again when the number of landmarks or points changes under it. Given whole-data
/// steps (useWholeData), each step is one iteration over every cell they keep instead.
class LloydTrainer final : public Trainer {
  public:
    /// `search` must outlive the trainer.
    LloydTrainer(const LloydParams& params, NearestSearch& search);
    /// Out of line, where LloydAssigner is a complete type.
    ~LloydTrainer() override;
    std::string name() const override;
    bool step(LandmarkModel& model, const TrainingData& data) override;
    /// Fraction of the iterations done.
    double progress() const override;
    /// Each later step is one Lloyd iteration over every cell of `steps` (null: the CPU again).
    bool useWholeData(WholeDataSteps* steps) override;

  private:
    // A whole iteration with the assigner (stepPoints 0).
    void wholeIteration(LandmarkModel& model, const TrainingData& data);
    // The next stepPoints points of the pass; true when the pass is complete.
    bool partOfIteration(LandmarkModel& model, const TrainingData& data);

    LloydParams m_params;
    NearestSearch& m_search;
    WholeDataSteps* m_whole = nullptr;  // every cell's iteration, when given
    std::unique_ptr<LloydAssigner> m_assigner;
    const float* m_assignerPoints = nullptr;  // the points the assigner's bounds are for
    size_t m_assignerRows = 0;
    LloydSums m_pass;       // the pass in progress (stepPoints > 0)
    size_t m_passRows = 0;  // the number of points it runs over
    size_t m_next = 0;      // its next point; 0: no pass in progress
    size_t m_done = 0;      // iterations finished
};

}  // namespace sepal
