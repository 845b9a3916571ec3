#pragma once
// Maps between a layout algorithm's own coordinates and the model's 2D positions, so that
// t-SNE and UMAP refine the current picture at its size and place, and pinned landmarks stay.

#include <cstdint>
#include <vector>

#include "core/model/landmark_model.h"

namespace sepal {

/// The affine frame (centre and spread) between layout coordinates Y (g x 2) and model.low.
class LayoutFrame {
  public:
    /// Remembers the centre and spread of the current 2D layout and returns it as Y, centred
    /// and scaled to standard deviation `targetStd`. A layout with no spread (all landmarks on
    /// one spot) starts from seeded random positions instead.
    std::vector<float> start(const LandmarkModel& model, float targetStd, uint64_t seed);
    /// Puts pinned (kLockLow) landmarks of Y where the current frame maps their model position.
    void pinLocked(const LandmarkModel& model, std::vector<float>& y) const;
    /// Writes Y to model.low (except pinned landmarks), keeping the original centre and spread.
    void writeBack(LandmarkModel& model, const std::vector<float>& y) const;

  private:
    struct Stats {
        double cx = 0.0, cy = 0.0, sd = 1.0;
    };
    static Stats statsOf(const std::vector<float>& xy);
    Stats m_model;
};

}  // namespace sepal
