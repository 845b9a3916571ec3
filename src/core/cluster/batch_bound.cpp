#include "core/cluster/batch_bound.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace sepal {

double BatchBoundPopulation::fold() const {
    return elsewhere > 0 ? inBatch / elsewhere : INFINITY;
}

std::vector<BatchBoundPopulation> batchBoundPopulations(
    const std::vector<PopulationCount>& counts,
    const std::function<std::string(const std::string& sample)>& batchOf) {
    std::map<std::string, double> batchCells;                      // batch -> its cells
    std::map<std::string, std::map<std::string, double>> cellsOf;  // population -> batch
    std::map<std::string, std::string> batchOfSample;
    for (const PopulationCount& c : counts) {
        if (c.population == "unassigned") continue;
        auto known = batchOfSample.find(c.sample);
        if (known == batchOfSample.end())
            known = batchOfSample.emplace(c.sample, batchOf(c.sample)).first;
        if (known->second.empty()) continue;
        batchCells[known->second] += double(c.cells);
        cellsOf[c.population][known->second] += double(c.cells);
    }
    std::vector<BatchBoundPopulation> out;
    if (batchCells.size() < 2) return out;
    double allCells = 0;
    for (const auto& [batch, cells] : batchCells) allCells += cells;
    for (const auto& [population, byBatch] : cellsOf) {
        double total = 0;
        for (const auto& [batch, cells] : byBatch) total += cells;
        for (const auto& [batch, cells] : byBatch) {
            const double others = allCells - batchCells[batch];
            if (batchCells[batch] == 0 || others == 0) continue;
            const BatchBoundPopulation b{population, batch, cells / batchCells[batch],
                                         (total - cells) / others};
            if (b.inBatch >= kBatchBoundShare && b.fold() >= kBatchBoundFold) out.push_back(b);
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.fold() > b.fold(); });
    return out;
}

}  // namespace sepal
