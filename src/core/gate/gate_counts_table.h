#pragma once
// gate_counts.csv: every gate population's events in every sample, as the app's Export > Counts
// and sepal-cli gate --counts write it (one writer, so that both give the same bytes).

#include <string>
#include <vector>

#include "core/gate/gate_membership.h"

namespace sepal {

/// One sample's counts of every population of a gate tree.
struct SampleGateCounts {
    std::string sample;             ///< the sample's name (populations.csv's: sampleName)
    std::vector<GateCount> counts;  ///< per population, in the tree's order
};

/// The text of gate_counts.csv: sample,gate,path,events,parent_events,percent_of_parent,
/// percent_of_all, a row per sample and population, samples in the order given; percentages
/// with four decimals (of the sample's own events).
std::string gateCountsCsv(const std::vector<SampleGateCounts>& samples);

/// A percentage as gate_counts.csv writes it: four decimals ("24.8355").
std::string gatePercent(double v);

/// Writes gateCountsCsv to `path` through a temporary file and a rename. Throws InputError.
void writeGateCounts(const std::string& path, const std::vector<SampleGateCounts>& samples);

}  // namespace sepal
