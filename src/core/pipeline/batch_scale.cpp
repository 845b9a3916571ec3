#include "core/pipeline/batch_scale.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"

namespace sepal {

namespace {

// Quantiles of a million events are within a thousandth of a level of all of them, and a
// cohort's batch of 10^8 events would take minutes to sort per marker.
constexpr size_t kMaxQuantileEvents = 1'000'000;

}  // namespace

ScaledTable::ScaledTable(const io::Table& table, const TransformPipeline& scale) : m_table(table) {
    std::vector<std::string> missing;
    for (const ColumnStep& step : scale.steps) {
        const int c = table.findChannel(step.name);
        if (c < 0) missing.push_back(step.name);
        m_column.push_back(c < 0 ? 0 : size_t(c));
        m_scales.emplace_back(step.transform);
    }
    if (!missing.empty()) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        throw InputError(table.source + ": lacks the aligned channel(s) " + list);
    }
    const io::Spillover* matrix = nullptr;
    if (scale.compensation.source == CompensationStep::Source::File) {
        if (!table.spillover)
            throw InputError(table.source +
                             ": the alignment compensates with each file's own spillover "
                             "matrix, but this file has none");
        matrix = &*table.spillover;
    } else if (scale.compensation.source == CompensationStep::Source::Stored) {
        matrix = &scale.compensation.spillover;
    }
    m_position.assign(scale.steps.size(), -1);
    if (!matrix) return;
    m_comp = resolveCompensation(*matrix, table);
    m_spill = matrix->matrix;
    for (size_t s = 0; s < m_column.size(); ++s)
        for (size_t j = 0; j < m_comp->columns.size(); ++j)
            if (m_comp->columns[j] == m_column[s]) m_position[s] = int(j);
}

BatchMaps::BatchMaps(const BatchAlignment& alignment, size_t batch)
    : m_alignment(alignment), m_maps(alignment.scale.steps.size()) {
    for (size_t s = 0; s < m_maps.size(); ++s)
        if (!alignment.quantiles[batch][s].empty() && !alignment.goal[s].empty())
            m_maps[s].emplace(alignment.quantiles[batch][s], alignment.goal[s]);
}

size_t BatchMaps::clusterOf(const std::vector<double>& y, std::vector<double>& carried) const {
    // Each cluster step carried once, then compared with every centre.
    const auto& steps = m_alignment.clusterSteps;
    carried.resize(steps.size());
    for (size_t i = 0; i < steps.size(); ++i) carried[i] = this->carried(y, steps[i]);
    size_t best = 0;
    double bestDistance = INFINITY;
    for (size_t c = 0; c < m_alignment.clusters.size(); ++c) {
        const auto& centre = m_alignment.clusters[c].centre;
        double d = 0;
        for (size_t i = 0; i < centre.size(); ++i)
            if (!std::isnan(carried[i])) d += (carried[i] - centre[i]) * (carried[i] - centre[i]);
        if (d < bestDistance) best = c, bestDistance = d;
    }
    return best;
}

// The batches in order of first appearance.
std::vector<std::string> distinctBatches(const std::vector<std::string>& batchOf) {
    std::vector<std::string> out;
    for (const auto& b : batchOf)
        if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    return out;
}

BatchColumns batchColumns(const std::vector<const io::Table*>& tables,
                          const std::vector<std::string>& batchOf,
                          const std::vector<std::string>& batches, const TransformPipeline& scale,
                          const BatchAlignment* clustering) {
    const size_t groups = clustering ? clustering->clusters.size() : 1;
    BatchColumns out(batches.size(),
                     std::vector<std::vector<std::vector<double>>>(
                         groups, std::vector<std::vector<double>>(scale.steps.size())));
    for (size_t b = 0; b < batches.size(); ++b) {
        std::optional<BatchMaps> maps;
        if (clustering) maps.emplace(*clustering, clustering->batchIndex(batches[b]));
        std::vector<double> scratch;
        const auto groupOf = [&](const std::vector<double>& y) {
            return maps ? maps->clusterOf(y, scratch) : 0;
        };
        size_t events = 0;
        for (size_t i = 0; i < tables.size(); ++i)
            if (batchOf[i] == batches[b]) events += tables[i]->events();
        const size_t stride =
            std::max<size_t>(1, (events + kMaxQuantileEvents - 1) / kMaxQuantileEvents);
        for (size_t i = 0; i < tables.size(); ++i) {
            if (batchOf[i] != batches[b]) continue;
            auto columns = ScaledTable(*tables[i], scale).sortedColumns(stride, groups, groupOf);
            for (size_t g = 0; g < groups; ++g)
                for (size_t s = 0; s < scale.steps.size(); ++s) {
                    auto& into = out[b][g][s];
                    const size_t middle = into.size();
                    into.insert(into.end(), columns[g][s].begin(), columns[g][s].end());
                    std::inplace_merge(into.begin(), into.begin() + long(middle), into.end());
                }
        }
    }
    return out;
}

std::vector<std::vector<double>> meanGoal(
    const std::vector<std::vector<std::vector<double>>>& quantiles, size_t levels) {
    std::vector<std::vector<double>> goal;
    for (size_t s = 0; s < quantiles.front().size(); ++s) {
        std::vector<double> mean(levels, 0.0);
        size_t batches = 0;
        for (const auto& batch : quantiles) {
            if (batch[s].empty()) continue;
            for (size_t l = 0; l < levels; ++l) mean[l] += batch[s][l];
            ++batches;
        }
        for (double& m : mean) m /= double(std::max<size_t>(batches, 1));
        goal.push_back(batches > 0 ? mean : std::vector<double>());
    }
    return goal;
}

}  // namespace sepal
