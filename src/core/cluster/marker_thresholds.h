#pragma once
// Where a marker turns from negative to positive, learnt from its values: the valley after the
// distribution's lowest mode (docs/QUALITY.md, "Names that match the data").

#include <vector>

namespace sepal {

/// A marker's cut points, in the values' units (transformed).
struct MarkerThreshold {
    /// False when the values have one mode only (every cell alike): no cut is learnt and the
    /// marker makes no call in names or rules (it may still tell namesakes apart, relatively:
    /// population_naming.h).
    bool resolved = false;
    float positive = 0;  ///< values at or above are positive: the valley after the lowest mode
    /// True when a second valley separates dim from bright cells above `positive`.
    bool hasBright = false;
    float bright = 0;   ///< values at or above are bright (when hasBright)
    float lowMode = 0;  ///< the lowest mode (the negative cells' usual value)
    float spread = 0;   ///< half the 16th-84th percentile distance of all the values
    /// The lowest mode lies far above the panel's background (learnThresholds): every cell is
    /// positive (positive is -infinity) and the valley cuts dim from bright instead.
    /// The valley's height over the smaller of its two modes: near 0 a clean cut, near the
    /// 0.8 that merges modes a shallow one.
    float depth = 1;
    bool onEveryCell = false;
    /// The lowest mode lies well above the panel's background (learnThresholds): a population
    /// below the cut whose median is at or above `dimFloor` carries the marker dimly and reads
    /// "lo", not "-", and one above the cut "hi" (CD45 on neutrophils and lymphocytes).
    bool lowIsDim = false;
    float dimFloor = 0;  ///< with lowIsDim: half way from the panel's background to its typical cut
};

/// Learns the cut points from `values` (non-finite ones left out, and a pile-up at the floor:
/// values within 1% of the range above the smallest when they are 1% or more, or enough for a
/// mode and over three times the values of the next band, cells that measured nothing): a
/// histogram of 256 bins between the 0.5th and 99.95th percentiles smoothed by a Gaussian of 3
/// bins; modes are local maxima of at least 0.1% of the highest, two neighbouring modes merging
/// unless the lowest point between them is below 80% of the smaller, and a mode of fewer than
/// 0.2% of the cells (or 25) joining its neighbour; `positive` is the lowest point after the
/// first mode, `bright` the lowest point after the second mode when there are three.
MarkerThreshold learnThreshold(std::vector<float> values);

}  // namespace sepal
