#pragma once
// Per-landmark-pair constants of the fast pair loop (embedsom.md, "A faster, exact form").

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/model/landmark_model.h"

namespace sepal {

/// Above this many landmarks the g x g pair table (8 bytes a pair) would not fit in memory
/// comfortably: the points are then projected the reference way.
constexpr size_t kMaxPairTableLandmarks = 4096;

/// For every ordered pair (u, v): c_uv = 1 / (2 |L_v - L_u|^2) and
/// f_uv = (1 + hp)^(-adjust) with hp = |l_v - l_u|^2; both 0 for the pairs the reference
/// skips (equal landmarks, or landmarks on one 2D spot). Rebuilt only when the model changes.
class PairConstants {
  public:
    /// Brings the table up to date with `model` and `adjust`; cheap when nothing changed, and
    /// only the moved landmarks' rows and columns when a few 2D positions moved (a drag).
    void update(const LandmarkModel& model, float adjust);
    /// Interleaved (c_uv, f_uv) of pair (u, v): 2 values at 2 * (u * g + v).
    const float* row(size_t u) const { return m_values.data() + 2 * u * m_g; }
    /// Landmarks the table is for (rows and columns).
    size_t landmarks() const { return m_g; }
    /// The adjust its powers f_uv are for.
    float adjust() const { return m_adjust; }

  private:
    /// Records the model the table now follows.
    void remember(const LandmarkModel& model);

    std::vector<float> m_values;       // g x g x 2
    std::vector<float> m_high, m_low;  // the model's values the table was made from
    size_t m_g = 0, m_d = 0;
    float m_adjust = -1.0f;
    uint64_t m_highVersion = 0, m_lowVersion = 0, m_fingerprint = 0;
    bool m_valid = false;
};

/// A cheap digest of the model's values: versions alone cannot tell two models apart.
uint64_t modelFingerprint(const LandmarkModel& model);

}  // namespace sepal
