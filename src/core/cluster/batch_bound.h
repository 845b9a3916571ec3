#pragma once
// Populations that lie in one batch. A population many times as frequent among one batch's cells
// as among the other batches' is more likely that batch's shifted copy of a cell type than a
// cell type of its own (naive CD4 T cells of a brighter batch named as a "CD3bright" subset): a
// batch effect to align away (sepal-cli align, the Batches window) before the populations are
// named and compared.

#include <functional>
#include <string>
#include <vector>

#include "core/cluster/population_tally.h"

namespace sepal {

/// A population far more frequent in one batch than in the others.
struct BatchBoundPopulation {
    std::string population;  ///< its name
    std::string batch;       ///< the batch it lies in
    double inBatch = 0;      ///< its share of that batch's cells
    double elsewhere = 0;    ///< its share of the other batches' cells
    /// How many times as frequent in the batch as elsewhere (infinite when it is nowhere else).
    double fold() const;
};

/// The folds above which a population is called bound to a batch, and its least share of the
/// batch's cells. Patients of one batch differ by 2 or 3 times at most in a population's share
/// (a generated study: at most 2.4 once aligned); a batch's shifted copy of a cell type is 5 to
/// 300 times as frequent there.
constexpr double kBatchBoundFold = 4.0;
constexpr double kBatchBoundShare = 0.01;

/// From populations.csv's rows and `batchOf` (each sample's batch; "" leaves a sample out): the
/// populations kBatchBoundFold times as frequent in one batch as in the others together and at
/// least kBatchBoundShare of that batch's cells, the most bound first. The cells of no
/// population ("unassigned") count for no population and for no batch's total. None with fewer
/// than two batches.
std::vector<BatchBoundPopulation> batchBoundPopulations(
    const std::vector<PopulationCount>& counts,
    const std::function<std::string(const std::string& sample)>& batchOf);

}  // namespace sepal
