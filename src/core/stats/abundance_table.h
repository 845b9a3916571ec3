#pragma once
// The cells of each population in each sample, as populations.csv holds them (sepal-cli apply,
// the app's Export > Counts): what differential abundance is tested on.

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace sepal::stats {

/// Cells per population and sample.
struct AbundanceTable {
    std::vector<std::string> samples;      ///< in order of first appearance
    std::vector<std::string> populations;  ///< in order of first appearance
    Eigen::MatrixXd cells;                 ///< populations x samples (0 where a row is absent)
};

/// Reads populations.csv (header sample,population,cells[,fraction]). Throws InputError naming
/// the file and line of a problem (a missing column, a count that is not a whole number, a
/// sample and population listed twice).
AbundanceTable readAbundanceTable(const std::string& path);

/// The table's columns of `samples` only, in their order (a comparison's chosen samples); throws
/// InputError for a sample it lacks.
AbundanceTable keepSamples(const AbundanceTable& table, const std::vector<std::string>& samples);

}  // namespace sepal::stats
