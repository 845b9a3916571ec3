#pragma once
// gate_counts.csv: every gate population's events in every sample, as the app's Export > Counts,
// sepal-cli gate --counts and sepal-cli apply write it (one writer, so that all give the same
// bytes), and its sums over a cohort's files, block by block.

#include <cstdint>
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

/// The gate counts of a cohort's samples summed block by block (apply reads its files in blocks,
/// on several lanes and MPI ranks): per sample and population its events and its parent's, and
/// the sample's events, as integers that add up over processes. Not thread-safe.
class GateCountSums {
  public:
    /// Zero counts of `samples` samples over the populations of `tree`.
    GateCountSums(const GateTree& tree, size_t samples);
    /// Adds one block of sample `sample`: gateCounts of the block (the tree's populations).
    void add(size_t sample, const std::vector<GateCount>& block);
    /// The sums, samples x (2 populations + 1), to add up over processes.
    const std::vector<uint64_t>& values() const { return m_values; }
    /// Replaces the sums by `values` (the same length: the processes' total).
    void setValues(std::vector<uint64_t> values);
    /// Each sample's counts, named `names` (one a sample), for gate_counts.csv.
    std::vector<SampleGateCounts> counts(const std::vector<std::string>& names) const;

  private:
    std::vector<GateCount> m_populations;  // ids and paths, in the tree's order
    std::vector<uint64_t> m_values;
};

/// Writes gateCountsCsv to `path` through a temporary file and a rename. Throws InputError.
void writeGateCounts(const std::string& path, const std::vector<SampleGateCounts>& samples);

}  // namespace sepal
