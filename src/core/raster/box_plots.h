#pragma once
// Box plots of population frequencies by condition, one small panel a population: the picture of
// a differential abundance test (as CATALYST's plotAbundances draws it), in core, without a GUI.

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "core/raster/image.h"

namespace sepal::raster {

/// What the box plots show: frequencies of populations in samples, the samples in groups.
struct BoxPlotInput {
    /// Populations, one panel each, in the order drawn (left to right, then down).
    std::vector<std::string> populations;
    std::vector<std::string> samples;       ///< sample names (one column of `frequencies` each)
    std::vector<std::string> sampleGroups;  ///< per sample: its group, one of `groups`
    std::vector<std::string> groups;        ///< the groups (conditions) in the order drawn
    /// Per group: its colour's place in the qualitative palette, so that a condition keeps the
    /// colour the app gives it wherever it is drawn (empty: the group's own place).
    std::vector<size_t> groupColours;
    /// Per sample: its pairing key (a patient), joining its dots across groups; empty: unpaired.
    std::vector<std::string> pairing;
    /// populations x samples, row-major: percent of the sample's cells (NaN: skipped).
    std::vector<double> frequencies;
    /// Per population: a second line under its name ("logFC 1.32, FDR 0.002"); empty: none.
    std::vector<std::string> subtitles;
    /// Per population: whether it is significant (bold title and a star); empty: none is.
    std::vector<bool> significant;
    std::string title;                     ///< above the panels (empty: none)
    std::string valueName = "% of cells";  ///< the y axis's name
    std::string groupName = "condition";   ///< the legend's title
    std::string pairingName = "patient";   ///< what a pairing key is, for the legend
    int columns = 0;                       ///< panels a row (0: as even as 5 a row allows)
};

/// The five numbers of a box. Quartiles are R's quantile type 7 (linear interpolation between
/// order statistics, as ggplot2's geom_boxplot); whiskers reach the most extreme value within
/// 1.5 interquartile ranges of the box.
struct BoxStats {
    size_t n = 0;              ///< finite values
    double lowWhisker = NAN;   ///< smallest value >= q1 - 1.5 IQR (NaN when n = 0)
    double q1 = NAN;           ///< first quartile
    double median = NAN;       ///< second quartile
    double q3 = NAN;           ///< third quartile
    double highWhisker = NAN;  ///< largest value <= q3 + 1.5 IQR
};

/// The box of `values` (NaN and infinities skipped).
BoxStats boxStats(std::vector<double> values);

/// Where one panel draws: its plot area and the value on each pixel row.
struct BoxPanelLayout {
    int left = 0, top = 0;              ///< the panel's top-left corner
    int plotLeft = 0, plotTop = 0;      ///< the plot area's top-left corner (axes on its edges)
    int plotRight = 0, plotBottom = 0;  ///< the plot area's bottom-right corner (exclusive)
    double lo = 0, hi = 1;              ///< axis values at rows yLo and yHi
    int yLo = 0, yHi = 0;               ///< the rows of lo (near plotBottom) and hi (near plotTop)
    std::vector<double> ticks;          ///< labelled values on the y axis
    std::vector<int> groupCenter;       ///< per group: x of its box's centre
    int boxHalfWidth = 0;               ///< half a box's width, in pixels

    /// The pixel row of `value` (fractional; round to draw).
    double rowOf(double value) const {
        return double(yLo) + (value - lo) / (hi - lo) * double(yHi - yLo);
    }
};

/// The whole picture's geometry.
struct BoxPlotLayout {
    int width = 0, height = 0;           ///< the image's size
    int columns = 0;                     ///< panels a row
    std::vector<BoxPanelLayout> panels;  ///< per population
};

/// The geometry renderBoxPlots draws with (the same checks of the input).
BoxPlotLayout boxPlotLayout(const BoxPlotInput& in);

/// The box plots as a picture: a grid of panels, each with the population's name (bold with a
/// star when significant) and subtitle, a y axis with nice ticks, per group a box (quartiles,
/// median, whiskers; see BoxStats) and the samples as deterministically jittered dots, grey lines
/// joining each pairing key's dots across groups; group colours from the qualitative palette with
/// a legend at the right. A dark background like the app's canvas, or a white one (`light`).
/// Throws InputError when sizes disagree, a sample's group is not among `groups`, `groups` is
/// empty or repeats a name, or there is no population or sample.
Image renderBoxPlots(const BoxPlotInput& in, bool light = false);

}  // namespace sepal::raster
