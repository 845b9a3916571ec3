#pragma once
// The medians of each population's markers per sample, as sample_medians.csv holds them
// (sepal-cli apply, the app's Export > Counts): what differential state is tested on.

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace sepal::stats {

/// Per sample and population: its cells and each marker's median.
struct SampleMedianTable {
    std::vector<std::string> samples;      ///< in order of first appearance
    std::vector<std::string> populations;  ///< in order of first appearance
    std::vector<std::string> markers;      ///< the header's columns after cells
    Eigen::MatrixXd cells;                 ///< populations x samples (0 where a row is absent)
    std::vector<Eigen::MatrixXd> medians;  ///< per marker: populations x samples (NaN: none)
};

/// Reads sample_medians.csv (header sample,population,cells,MARKER...; NA for a missing
/// median). Throws InputError naming the file and line of a problem (a missing column, a count
/// that is not a whole number, a median that is not a number, a row listed twice) and says
/// that medians.csv, pooled over the samples, is not what is wanted.
SampleMedianTable readSampleMedians(const std::string& path);

}  // namespace sepal::stats
