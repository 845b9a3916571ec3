#pragma once
// Lloyd's assignment step on the CPU, repeated over one set of points as the centres move: the
// nearest centre of every point, exactly as a full search finds it, while skipping the blocks of
// centres that provably hold no nearer one (the group filter of Yinyang k-means).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/knn/landmark_tiles.h"

namespace sepal {

/// Nearest centres of a fixed set of points over Lloyd's iterations. The centres are grouped
/// once into blocks of kLandmarkBlock near one another; each point keeps an upper bound on the
/// distance to its centre and a lower bound per block, loosened by how far the centres moved.
/// A block whose lower bound exceeds the upper bound (with margins for the float distances'
/// rounding) cannot hold the winner and is not compared. The result is the full search's, bit
/// for bit: ties by the lower index, NaN as +infinity; it does not depend on the thread count.
class LloydAssigner {
  public:
    /// points: n x d, unchanged and alive while the assigner is used.
    LloydAssigner(const float* points, size_t n, size_t d);
    /// The nearest of the g centres (g x d) of every point: idx and sq, n values each.
    void assign(const float* centres, size_t g, uint32_t* idx, float* sq);
    /// The share of (point, block) comparisons the last assign skipped.
    double skippedShare() const { return m_skipped; }

  private:
    void groupCentres(const float* centres);
    void loosenBounds(const float* centres);

    const float* m_points;
    size_t m_n, m_d;
    size_t m_g = 0, m_blocks = 0;
    bool m_bounded = false;            // the bounds hold for the centres in m_previous
    std::vector<uint32_t> m_order;     // column -> centre: the centres grouped into blocks
    std::vector<uint32_t> m_blockOf;   // centre -> its block
    std::vector<uint32_t> m_columnOf;  // m_order padded to whole blocks: the kernel's indices
    LandmarkTiles m_tiles;             // the centres in column order
    std::vector<float> m_previous;     // the centres of the last assign
    std::vector<uint32_t> m_assigned;  // each point's centre
    std::vector<double> m_upper;       // >= the distance of each point to its centre
    std::vector<double> m_lower;       // n x blocks: <= the distance to any centre of a block
    double m_skipped = 0.0;
};

}  // namespace sepal
