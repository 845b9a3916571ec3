#pragma once
// A population tally's tables as the statistics read them from its files: the app compares
// conditions on its own counts and medians, and gives what sepal-cli stats gives on the
// populations.csv and sample_medians.csv it exports.

#include "core/cluster/population_tally.h"
#include "core/stats/abundance_table.h"
#include "core/stats/sample_median_table.h"

namespace sepal::stats {

/// The counts as readAbundanceTable reads populations.csv (the "unassigned" row included
/// when the tally has one).
AbundanceTable abundanceOf(const PopulationTally& tally);

/// The samples' medians as readSampleMedians reads sample_medians.csv: each through the text
/// it is written as, so that the numbers are the file's to the last bit.
SampleMedianTable sampleMediansOf(const PopulationTally& tally);

}  // namespace sepal::stats
