#pragma once
// A biaxial plot of two channels of the open samples, shown on one population's cells (the
// gates' parent): each cell's two values on the axes' scales (Gating-ML's transforms, as a gate
// drawn on the plot will use), the picture of them by density or population, the gates drawn
// on those cells as outlines in plot units, and the axes' ticks in data units. No GL.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "app/state.h"

namespace sepal::app {

/// The cells of one population on two scaled channels.
struct BiaxialPlot {
    std::array<GateDimension, 2> axes;  ///< x then y: channel, compensation, scale (no bounds)
    std::string parent;                 ///< the population shown ("" every cell)
    std::vector<float> values;          ///< events x 2 in the scales' units; NaN outside `parent`
    size_t shown = 0;                   ///< cells of `parent`
    std::array<float, 2> low{0, 0}, high{1, 1};  ///< the plotted range per axis
    bool fileMatrix = false;  ///< the data has its own spillover matrix (else "FCS" is none)
};

/// The scale an axis starts with for `channel` of `table`: the data's own units for scatter,
/// time and event length, else arcsinh(x / 5) for mass cytometry and arcsinh(x / 150) for
/// fluorescence (Gating-ML's fasinh with M = 1 / ln 10, whose units are those of asinh(x / c)).
GateScale defaultAxisScale(const io::Table& table, const std::string& channel);

/// The scale a plot of population `parent` starts with on `channel`: that of the first gate
/// drawn on `parent` over the channel (a FlowJo workspace's or Gating-ML file's transform, so
/// that its gates look as they were drawn), else defaultAxisScale.
GateScale startingAxisScale(const Dataset& data, const Gating& gating, const std::string& parent,
                            const std::string& channel);

/// Gating-ML's fasinh in the units of asinh(x / cofactor).
GateScale arcsinhScale(double cofactor);

/// The axis of channel `channel` (a name or marker of the first sample) with `scale`, and
/// `compensation` (File when the data's pipeline compensates with the file's matrix).
GateDimension biaxialAxis(const Dataset& data, const std::string& channel, const GateScale& scale,
                          bool compensate);

/// The plot of `axes` over the cells of population `parent` of `gating`; the range covers the
/// 0.1st to 99.9th percentile of those cells with a margin. Throws InputError when a sample
/// lacks a channel.
BiaxialPlot biaxialOf(const Dataset& data, const Gating& gating,
                      const std::array<GateDimension, 2>& axes, const std::string& parent);

/// How the cells of a biaxial plot are coloured.
enum class BiaxialColour { Density, Population };

/// The plot as width x height RGBA bytes, top row first: log density (viridis) of the cells in
/// the embedded population with the parent's other cells in grey, or each cell in its
/// population's colour.
std::vector<uint8_t> biaxialPicture(const BiaxialPlot& plot, int width, int height,
                                    BiaxialColour colour, const Populations& populations,
                                    const Gating& gating);

/// One outline of a gate on a plot, in plot units, and where its label goes.
struct GateOutline {
    std::string id;             ///< the population (a gate, or a quadrant)
    std::string name;           ///< "live"
    std::string share;          ///< "87.4%": percent of its parent ("" before it is counted)
    std::string note;           ///< " (compensated otherwise)", or ""
    std::vector<float> points;  ///< x y pairs of a closed outline (plot units)
    /// Where the label goes (plot units): the middle of the outline's part on the plot; for a
    /// quadrant its corner away from the dividers, as FlowJo puts them.
    std::array<float, 2> anchor{};
    /// Which side of the anchor the label lies on, per axis: -1 before it (left, below), 0
    /// centred on it, 1 after it (right, above).
    std::array<int, 2> side{0, 0};
    /// The outline's part on the plot (x0 y0 x1 y1, plot units): the room its label has.
    std::array<float, 4> room{};
    bool embedded = false;  ///< the embedded population
};

/// The outlines of the gates drawn on the plot's parent over its two channels (rectangles and
/// ranges, polygons, ellipses, quadrants), each through its own scale into the plot's.
std::vector<GateOutline> gateOutlines(const BiaxialPlot& plot, const Gating& gating);

/// One tick of an axis: its place in plot units and its label in data units.
struct AxisTick {
    float at = 0;       ///< plot units
    std::string label;  ///< "0", "1e3", "250k"...
    bool major = true;  ///< labelled (minor ticks are not)
};

/// Ticks in data units over [low, high] (plot units) of an axis on `scale`: decades (0, ±10^k
/// and their multiples) on logarithmic-like scales, round steps on linear ones.
std::vector<AxisTick> axisTicks(const GateScale& scale, float low, float high);

/// "arcsinh(x/5)", "logicle T=262144 W=0.5 M=4.5 A=0", "linear": how an axis shows its channel.
std::string scaleLabel(const GateScale& scale);

}  // namespace sepal::app
