#pragma once
// The pictures of a comparison of conditions: each population's frequency per sample by
// condition as box plots (significant populations first), and the differential state results
// as a populations x state markers heatmap of logFC.

#include <string>

#include "core/raster/box_plots.h"
#include "core/raster/state_heatmap.h"
#include "core/stats/study_statistics.h"

namespace sepal::stats {

/// The box plots of `counts` (percent of each sample's cells; the compared samples of `result`)
/// by the contrast's groups, joined by `pairColumn` of the metadata (a patient; "" for none), the
/// tested populations by adjusted p first, each titled with its logFC and FDR.
raster::BoxPlotInput abundanceBoxPlots(const AbundanceTable& counts, const StudyResult& result,
                                       const SampleMetadata& metadata,
                                       const std::string& pairColumn);

/// The differential state results as a heatmap: the populations in the order of the counts,
/// the state markers tested, logFC coloured and FDR < 0.05 marked.
raster::StateHeatmapInput stateHeatmap(const StudyResult& result);

}  // namespace sepal::stats
