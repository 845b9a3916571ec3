#include "core/stats/tally_tables.h"

#include <cstdlib>
#include <limits>

#include "core/stats/csv_rows.h"

namespace sepal::stats {

AbundanceTable abundanceOf(const PopulationTally& tally) {
    AbundanceTable t;
    const std::vector<PopulationCount> rows = tally.counts();
    std::vector<std::pair<size_t, size_t>> at;
    for (const auto& r : rows)
        at.emplace_back(indexAdding(t.populations, r.population), indexAdding(t.samples, r.sample));
    t.cells =
        Eigen::MatrixXd::Zero(Eigen::Index(t.populations.size()), Eigen::Index(t.samples.size()));
    for (size_t i = 0; i < rows.size(); ++i)
        t.cells(Eigen::Index(at[i].first), Eigen::Index(at[i].second)) = double(rows[i].cells);
    return t;
}

SampleMedianTable sampleMediansOf(const PopulationTally& tally) {
    SampleMedianTable t;
    t.markers = tally.markers();
    const std::vector<SampleMedians> rows = tally.sampleMedians();
    std::vector<std::pair<size_t, size_t>> at;
    for (const auto& r : rows)
        at.emplace_back(indexAdding(t.populations, r.population), indexAdding(t.samples, r.sample));
    const auto P = Eigen::Index(t.populations.size()), S = Eigen::Index(t.samples.size());
    t.cells = Eigen::MatrixXd::Zero(P, S);
    t.medians.assign(t.markers.size(),
                     Eigen::MatrixXd::Constant(P, S, std::numeric_limits<double>::quiet_NaN()));
    for (size_t i = 0; i < rows.size(); ++i) {
        const auto p = Eigen::Index(at[i].first), s = Eigen::Index(at[i].second);
        t.cells(p, s) = double(rows[i].cells);
        for (size_t m = 0; m < rows[i].medians.size() && m < t.markers.size(); ++m) {
            const std::string text = tallyNumber(rows[i].medians[m]);
            t.medians[m](p, s) = text == "NA" ? std::numeric_limits<double>::quiet_NaN()
                                              : std::strtod(text.c_str(), nullptr);
        }
    }
    return t;
}

}  // namespace sepal::stats
