#include "core/stats/study_pictures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace sepal::stats {
namespace {

/// "logFC 1.32, FDR 0.002", or why there is none.
std::string subtitleOf(const AbundanceResult& r) {
    if (!r.tested) return "not tested (too few cells)";
    char text[64];
    if (r.pAdjusted > 0)
        std::snprintf(text, sizeof text, "logFC %.2f, FDR %.2g", r.logFC, r.pAdjusted);
    else  // below the smallest double
        std::snprintf(text, sizeof text, "logFC %.2f, FDR < 1e-300", r.logFC);
    return text;
}

}  // namespace

raster::BoxPlotInput abundanceBoxPlots(const AbundanceTable& allCounts, const StudyResult& result,
                                       const SampleMetadata& metadata,
                                       const std::string& pairColumn) {
    raster::BoxPlotInput in;
    const StudyDesign& design = result.design;
    // The compared samples only (a comparison may leave some out), in the design's order.
    const AbundanceTable counts = keepSamples(allCounts, design.samples);
    in.samples = counts.samples;
    in.groups = design.groupLevels;
    // Each level in the colour of its place among the column's levels in sorted order, as the
    // app colours the samples by the column: "stim" keeps its colour as reference or compared.
    std::vector<std::string> sorted = design.groupLevels;
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& level : in.groups)
        in.groupColours.push_back(
            size_t(std::find(sorted.begin(), sorted.end(), level) - sorted.begin()));
    in.sampleGroups = design.groupOf;
    in.groupName = design.groupColumn;
    in.title = "Abundance (" + design.contrastText + ")";
    if (!pairColumn.empty()) {
        const auto it = std::find(metadata.columns.begin(), metadata.columns.end(), pairColumn);
        if (it != metadata.columns.end()) {
            const size_t c = size_t(it - metadata.columns.begin());
            for (const auto& s : counts.samples) in.pairing.push_back(metadata.valueOf(s, c));
            in.pairingName = pairColumn;
        }
    }
    // The tested populations by adjusted p, then the others in the table's order.
    std::vector<size_t> order(result.abundance.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const auto &x = result.abundance[a], &y = result.abundance[b];
        if (x.tested != y.tested) return x.tested;
        return x.tested && x.pAdjusted < y.pAdjusted;
    });
    const Eigen::RowVectorXd totals = counts.cells.colwise().sum();
    for (const size_t p : order) {
        const AbundanceResult& r = result.abundance[p];
        in.populations.push_back(r.population);
        in.subtitles.push_back(subtitleOf(r));
        in.significant.push_back(r.tested && r.pAdjusted < 0.05);
        // The counts' row of that name (the results leave the unassigned cells out).
        const auto row = Eigen::Index(
            std::find(counts.populations.begin(), counts.populations.end(), r.population) -
            counts.populations.begin());
        for (Eigen::Index s = 0; s < counts.cells.cols(); ++s)
            in.frequencies.push_back(row < counts.cells.rows() && totals(s) > 0
                                         ? 100.0 * counts.cells(row, s) / totals(s)
                                         : NAN);
    }
    return in;
}

raster::StateHeatmapInput stateHeatmap(const StudyResult& result) {
    raster::StateHeatmapInput in;
    in.markers = result.stateMarkers;
    in.title = "State (" + result.design.contrastText + ")";
    for (const auto& a : result.abundance) in.populations.push_back(a.population);
    const size_t m = in.markers.size();
    in.logFC.assign(in.populations.size() * m, NAN);
    in.pAdjusted.assign(in.populations.size() * m, NAN);
    for (const StateResult& r : result.state) {
        const auto p = std::find(in.populations.begin(), in.populations.end(), r.population);
        const auto k = std::find(in.markers.begin(), in.markers.end(), r.marker);
        if (p == in.populations.end() || k == in.markers.end() || !r.tested) continue;
        const size_t at = size_t(p - in.populations.begin()) * m + size_t(k - in.markers.begin());
        in.logFC[at] = r.logFC;
        in.pAdjusted[at] = r.pAdjusted;
    }
    return in;
}

}  // namespace sepal::stats
