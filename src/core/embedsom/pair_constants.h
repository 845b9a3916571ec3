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
/// Landmark u's row and column sit at slot(u): its locality rank (locality_rank.h), so that the
/// pairs of one cell, whose landmarks lie near each other, share cache lines; or u itself where
/// the layout by rank is off.
class PairConstants {
  public:
    /// Brings the table up to date with `model` and `adjust`; cheap when nothing changed, and
    /// only the moved landmarks' rows and columns when a few 2D positions moved (a drag).
    void update(const LandmarkModel& model, float adjust);
    /// Interleaved (c_uv, f_uv) of pair (u, v): 2 values at row(u) + 2 slot(v).
    const float* row(size_t u) const { return m_values.data() + 2 * size_t(m_slot[u]) * m_g; }
    /// Where landmark u's row and column sit in the table.
    uint32_t slot(size_t u) const { return m_slot[u]; }
    /// The table: pair (u, v) at 2 (slot(u) g + slot(v)).
    const float* table() const { return m_values.data(); }
    /// Landmarks the table is for (rows and columns).
    size_t landmarks() const { return m_g; }
    /// The adjust its powers f_uv are for.
    float adjust() const { return m_adjust; }

  private:
    /// Records the model the table now follows.
    void remember(const LandmarkModel& model);

    std::vector<float> m_values;       // g x g x 2, by slot
    std::vector<uint32_t> m_slot;      // per landmark, its row and column
    std::vector<float> m_high, m_low;  // the model's values the table was made from
    size_t m_g = 0, m_d = 0;
    float m_adjust = -1.0f;
    uint64_t m_highVersion = 0, m_lowVersion = 0, m_fingerprint = 0;
    bool m_valid = false;
};

/// A cheap digest of the model's values: versions alone cannot tell two models apart.
uint64_t modelFingerprint(const LandmarkModel& model);

}  // namespace sepal
