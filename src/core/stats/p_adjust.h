#pragma once
// Multiple-testing correction of a family of p-values.

#include <vector>

namespace sepal::stats {

/// Benjamini-Hochberg adjusted p-values (R's p.adjust(p, "BH")): each p times n over its rank,
/// made monotone from the largest down and capped at 1. NaN entries (tests not done) stay NaN
/// and do not count in n.
std::vector<double> adjustBenjaminiHochberg(const std::vector<double>& p);

}  // namespace sepal::stats
