#pragma once
// A biaxial plot of two channels of the open samples: each cell's two values on the gate axes'
// scales (core's gateAxes) and the picture of them, by density or by population. What the
// Biaxial window shows and where its gates are drawn; no GL.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "app/state.h"

namespace sepal::app {

/// The cells of every sample on two scaled channels.
struct BiaxialPlot {
    TransformPipeline axes;     ///< x then y: channel, transform, compensation (a gate's axes)
    std::vector<float> values;  ///< events x 2, scaled
    std::array<float, 2> low{0, 0}, high{1, 1};  ///< the plotted range per axis
};

/// How the cells of a biaxial plot are coloured.
enum class BiaxialColour { Density, Population };

/// The plot of channels x and y (names or markers of the first sample) over every sample, with
/// `compensation`; the range covers the 0.1st to 99.9th percentile with a margin. Throws
/// InputError when a sample lacks a channel.
BiaxialPlot biaxialOf(const Dataset& data, const std::string& x, const std::string& y,
                      const CompensationStep& compensation);

/// The plot as width x height RGBA bytes, top row first: log density (viridis) of the cells
/// inside the gates with those outside in grey, or each cell in its population's colour.
std::vector<uint8_t> biaxialPicture(const BiaxialPlot& plot, int width, int height,
                                    BiaxialColour colour, const Populations& populations,
                                    const Gating& gating);

/// The share of the cells inside `polygon` (in the plot's units), of all events.
double shareInside(const BiaxialPlot& plot, const std::vector<float>& polygon);

}  // namespace sepal::app
