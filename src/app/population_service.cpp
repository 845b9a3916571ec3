// The population service: edits, populations made from the landmarks as sepal-cli embed
// --metaclusters makes them, the populations a model file carries (both ways), their counts
// and their heatmap.

#include <algorithm>
#include <string>

#include "app/population_service.h"
#include "app/populations.h"
#include "core/cluster/heatmap.h"
#include "core/cluster/metaclusters.h"
#include "core/cluster/population_naming.h"
#include "core/common/error.h"
#include "core/embedsom/embedsom.h"
#include "core/knn/nearest_search.h"
#include "core/pipeline/prepare.h"
#include "core/pipeline/samples.h"
#include "core/transform/channel_label.h"

namespace sepal::app {

void PopulationService::fromLandmarks(size_t k) {
    const State& st = state();
    try {
        if (st.data.events() == 0 || st.model.count() == 0)
            throw InputError("open data and train landmarks first");
        if (k > kMostPopulations)
            throw InputError("at most " + std::to_string(kMostPopulations) +
                             " populations; ask for fewer");
        // One search: every cell's nearest landmark. Each landmark weighs the cells inside the
        // gates it is nearest to, and the populations are named from those cells, as sepal-cli
        // embed --gates does it; the cells outside join none.
        auto search = makeCpuNearestSearch();
        const auto nearest = nearestLandmarks(st.data.points, st.model, *search);
        const std::vector<size_t> inside = st.gating.events(st.data.events());
        const Matrix gated = gatedRows(st.data.points, st.gating);
        std::vector<uint32_t> gatedNearest;
        gatedNearest.reserve(inside.size());
        for (size_t i : inside) gatedNearest.push_back(nearest[i]);
        MetaclusterSettings settings;
        settings.k = k;
        settings.seed = st.training.seed;
        settings.weights = landmarkWeights(gated, gatedNearest, st.model.count());
        NamingInput naming = st.data.namingInput(st.training.markerClasses);
        naming.cutsFrom = &st.data.points;  // a marker's cuts are its cuts on every cell
        settings.columns = groupingColumns(naming.classes);
        const auto ofLandmark = metaclusterLandmarks(st.model, settings);
        auto codes = groupsOfNearest(st.data.points, nearest, ofLandmark);
        std::vector<int32_t> gatedCodes;
        gatedCodes.reserve(inside.size());
        for (size_t i : inside) gatedCodes.push_back(codes[i]);
        const auto named = namePopulations(gated, gatedCodes, k, naming);
        std::vector<std::string> names;
        for (const PopulationName& n : named) names.push_back(n.name);
        for (size_t i = 0; i < codes.size(); ++i)
            if (!st.gating.contains(i)) codes[i] = -1;
        Populations next = populationsFromCodes(names, codes);
        for (size_t p = 0; p < named.size(); ++p) next.groups[p].phenotype = named[p].phrase;
        next.regions = regionsFromLandmarks(ofLandmark, k);
        m_document.replacePopulations(std::move(next), "Populations from landmarks");
        log(LogEntry::Info, std::to_string(k) + " populations from the landmarks");
    } catch (const std::exception& e) {
        log(LogEntry::Error, std::string("populations from landmarks: ") + e.what());
    }
}

Heatmap PopulationService::heatmap() const {
    const State& st = state();
    std::vector<std::string> names;
    for (const auto& g : st.populations.groups) names.push_back(g.name);
    // The cells inside the gates, as sepal-cli apply's heatmap.
    std::vector<int32_t> codes;
    for (size_t i : st.gating.events(st.data.events()))
        codes.push_back(
            i < st.populations.membership.size() ? int32_t(st.populations.membership[i]) - 1 : -1);
    const StateColumns& extra = stateColumns();
    std::vector<std::string> markers = st.data.markerNames();
    markers.insert(markers.end(), extra.markers.begin(), extra.markers.end());
    Heatmap heat =
        heatmapOf(gatedRows(st.data.points, st.gating, &extra.values), codes, names, markers);
    heat.classes = tallyClasses();
    return heat;
}

const StateColumns& PopulationService::stateColumns() const {
    const State& st = state();
    const auto& data = st.data;
    // The classes and the embedded columns decide which markers are state ones.
    std::string key = std::to_string(data.version) + "|" + st.pipeline.toJson().dump();
    for (const auto& [channel, c] : st.training.markerClasses)
        key += "|" + channel + "=" + markerClassKey(c);
    if (key == m_stateKey) return m_state;
    m_state = StateColumns{};
    m_stateKey = key;
    if (data.tables.empty()) return m_state;
    const io::Table& first = data.tables.front();
    m_state.pipeline =
        chooseStatePipeline(first, st.pipeline, overridesOf(first, st.training.markerClasses));
    // Only markers every sample has (the embedded ones must be in all; these need not).
    std::erase_if(m_state.pipeline.steps, [&](const ColumnStep& step) {
        return std::any_of(data.tables.begin(), data.tables.end(),
                           [&](const io::Table& t) { return t.findChannel(step.name) < 0; });
    });
    if (m_state.pipeline.steps.empty()) return m_state;
    m_state.markers = markerNames(first, m_state.pipeline.columns());
    // Each sample through the same transforms (no statistics are fitted: they are not z-scored).
    m_state.values = Matrix(data.events(), m_state.pipeline.steps.size());
    for (size_t s = 0; s < data.tables.size(); ++s) {
        const Matrix part = m_state.pipeline.apply(data.tables[s]);
        std::copy(part.values.begin(), part.values.end(),
                  m_state.values.values.begin() + long(data.samples[s].first * part.cols));
    }
    return m_state;
}

std::vector<MarkerClass> PopulationService::tallyClasses() const {
    std::vector<MarkerClass> classes =
        state().data.namingInput(state().training.markerClasses).classes;
    classes.resize(classes.size() + stateColumns().markers.size(), MarkerClass::State);
    return classes;
}

ModelLabels PopulationService::ofModel() const {
    const State& st = state();
    const size_t g = st.model.count(), k = st.populations.groups.size(), n = st.data.events();
    if (k == 0 || g == 0 || n == 0) return {};
    std::vector<std::string> names;
    for (const auto& p : st.populations.groups) names.push_back(p.name);
    auto search = makeCpuNearestSearch();
    ModelLabels out;
    const PopulationRegions& regions = st.populations.regions;
    // The strokes lie in EmbedSOM's picture, as apply places new files (not a polished one).
    const auto& xy = m_scheduler.embedSomPositions();
    std::vector<int32_t> labels;
    if (!regions.empty() && regions.labelOfLandmark.size() == g && xy.size() == 2 * n) {
        // The populations as they were made: the landmarks' labels, then the strokes.
        out.regions = regions;
        out.populations = populationsFromGroups(populationOfLandmarks(regions), names);
        labels = labelCells(
            regions, groupsOfPoints(st.data.points, st.model, regions.labelOfLandmark, *search),
            xy.data());
    } else {
        // Of unknown making (or the landmarks were added or removed since): each landmark joins
        // the population most of its cells are in.
        std::vector<int32_t> self(g);
        for (size_t j = 0; j < g; ++j) self[j] = int32_t(j);
        const auto nearest = groupsOfPoints(st.data.points, st.model, self, *search);
        std::vector<size_t> votes(g * (k + 1), 0);
        for (size_t i = 0; i < nearest.size() && i < st.populations.membership.size(); ++i)
            if (nearest[i] >= 0 && st.gating.contains(i))
                ++votes[size_t(nearest[i]) * (k + 1) + st.populations.membership[i]];
        std::vector<int32_t> group(g, -1);
        for (size_t j = 0; j < g; ++j) {
            const size_t* v = votes.data() + j * (k + 1);
            const size_t best = size_t(std::max_element(v, v + k + 1) - v);
            if (v[best] > 0 && best > 0) group[j] = int32_t(best - 1);
        }
        out.populations = populationsFromGroups(group, names);
        labels = nearest;
        for (int32_t& l : labels) l = l >= 0 ? group[size_t(l)] : -1;
    }
    for (size_t p = 0; p < k && p < out.populations.size(); ++p)
        out.populations[p].phenotype = st.populations.groups[p].phenotype;
    for (size_t i = 0; i < n && i < st.populations.membership.size(); ++i)
        if (st.gating.contains(i) && labels[i] != int32_t(st.populations.membership[i]) - 1)
            ++out.disagreeing;
    return out;
}

void PopulationService::adoptModel(const LoadedModel& loaded, const std::string& source) {
    const State& st = state();
    const auto& populations = loaded.populations;
    if (populations.empty() || st.data.events() == 0) return;
    if (populations.size() > kMostPopulations) {
        log(LogEntry::Warning, source + " has " + std::to_string(populations.size()) +
                                   " populations; the app shows at most " +
                                   std::to_string(kMostPopulations) + ": they were left out");
        return;
    }
    auto search = makeCpuNearestSearch();
    std::vector<int32_t> codes;
    PopulationRegions regions = loaded.regions;
    if (regions.empty()) {
        const auto ofLandmark = groupsOfLandmarks(populations, st.model.count());
        codes = groupsOfPoints(st.data.points, st.model, ofLandmark, *search);
        regions = regionsFromLandmarks(ofLandmark, populations.size());
    } else {
        // Regions of the layout: where the model places each cell, as sepal-cli apply places it.
        std::vector<float> xy(2 * st.data.events());
        makeCpuProjector()->project(st.data.points.data(), st.data.points.rows, st.data.points.cols,
                                    st.model, st.embed, xy.data());
        codes = labelCells(
            regions, groupsOfPoints(st.data.points, st.model, regions.labelOfLandmark, *search),
            xy.data());
    }
    for (size_t i = 0; i < codes.size(); ++i)
        if (!st.gating.contains(i)) codes[i] = -1;  // as sepal-cli apply leaves them out
    Populations next = populationsFromCodes(populationNames(populations), codes);
    for (size_t p = 0; p < populations.size() && p < next.groups.size(); ++p)
        next.groups[p].phenotype = populations[p].phenotype;
    next.regions = std::move(regions);
    m_document.replacePopulations(std::move(next), "Populations of " + source);
}

size_t PopulationService::brush(const std::vector<float>& polygon, const std::string& name,
                                const std::string& onlyFrom) {
    return m_document.brush(polygon, name, m_scheduler.positions(), onlyFrom,
                            m_scheduler.polished() == nullptr);
}

void PopulationService::remove(size_t i) {
    m_document.deletePopulation(i);
}

void PopulationService::edit(size_t i, const Population& p) {
    m_document.editPopulation(i, p);
}

void PopulationService::merge(size_t from, size_t into) {
    m_document.mergePopulations(from, into);
}

const std::vector<size_t>& PopulationService::sizes() const {
    const State& st = state();
    const uint64_t key = st.version(Part::Populations) * 1000003 + st.version(Part::Data);
    if (key != m_sizesKey) {
        m_sizes = groupSizes(st.populations);
        m_sizesKey = key;
    }
    return m_sizes;
}

PopulationTally PopulationService::tally(bool withValues) const {
    std::vector<size_t> all;
    for (size_t c = 0; withValues && c < state().data.points.cols; ++c) all.push_back(c);
    return tallyOf(all, withValues, true);
}

namespace {

/// The embedded columns of class state, from the tally's classes.
std::vector<size_t> embeddedStateColumns(const std::vector<MarkerClass>& classes, size_t embedded) {
    std::vector<size_t> columns;
    for (size_t c = 0; c < embedded && c < classes.size(); ++c)
        if (classes[c] == MarkerClass::State) columns.push_back(c);
    return columns;
}

}  // namespace

PopulationTally PopulationService::stateTally() const {
    return tallyOf(embeddedStateColumns(tallyClasses(), state().data.points.cols), true, false);
}

std::vector<std::string> PopulationService::stateColumnNames() const {
    std::vector<std::string> names;
    const std::vector<std::string> embedded = state().data.markerNames();
    for (const size_t c : embeddedStateColumns(tallyClasses(), state().data.points.cols))
        names.push_back(embedded[c]);
    for (const auto& m : stateColumns().markers) names.push_back(m);
    return names;
}

PopulationTally PopulationService::tallyOf(const std::vector<size_t>& columns, bool extra,
                                           bool pooled) const {
    const State& st = state();
    const auto& data = st.data;
    std::vector<std::string> names;
    for (const auto& g : st.populations.groups) names.push_back(g.name);
    // The same tally sepal-cli apply fills, one sample after another.
    static const StateColumns kNone;  // counts alone need no values
    const StateColumns& beside = extra ? stateColumns() : kNone;
    const std::vector<std::string> embeddedNames = data.markerNames();
    std::vector<std::string> markers;
    for (const size_t c : columns) markers.push_back(embeddedNames[c]);
    markers.insert(markers.end(), beside.markers.begin(), beside.markers.end());
    PopulationTally tally(names, markers, 1, pooled);
    // Only the cells inside the gates count, as sepal-cli apply counts the gated cells.
    const size_t d = columns.size(), e = beside.values.cols;
    const std::vector<std::string> samples = data.sampleNames();
    for (size_t si = 0; si < data.samples.size(); ++si) {
        const auto& sample = data.samples[si];
        std::vector<size_t> rows;
        for (size_t i = sample.first; i < sample.first + sample.count; ++i)
            if (st.gating.contains(i)) rows.push_back(i);
        Matrix values(rows.size(), d + e);
        std::vector<int32_t> codes(rows.size(), -1);
        for (size_t r = 0; r < rows.size(); ++r) {
            float* out = values.row(r);
            const float* in = data.points.row(rows[r]);
            for (size_t k = 0; k < d; ++k) out[k] = in[columns[k]];
            if (e) std::copy_n(beside.values.row(rows[r]), e, out + d);
            if (rows[r] < st.populations.membership.size())
                codes[r] = int32_t(st.populations.membership[rows[r]]) - 1;
        }
        tally.add(si, samples[si], codes, values);
        tally.finishSample(si);
    }
    return tally;
}

std::vector<PopulationCount> PopulationService::counts() const {
    if (state().populations.groups.empty()) return {};
    return tally(false).counts();
}

const std::vector<BatchBoundPopulation>& PopulationService::batchBound(
    const std::string& batchColumn) const {
    const State& st = state();
    const std::string key = std::to_string(st.version(Part::Data)) + " " +
                            std::to_string(st.version(Part::Populations)) + " " +
                            std::to_string(st.version(Part::Gates)) + " " + st.metadata.source +
                            " " + std::to_string(st.metadata.files.size()) + " " + batchColumn;
    if (key == m_boundKey) return m_bound;
    m_boundKey = key;
    m_bound.clear();
    const auto column =
        std::find(st.metadata.columns.begin(), st.metadata.columns.end(), batchColumn);
    if (column == st.metadata.columns.end() || st.populations.groups.empty()) return m_bound;
    const size_t c = size_t(column - st.metadata.columns.begin());
    m_bound = batchBoundPopulations(
        counts(), [&](const std::string& sample) { return st.metadata.valueOf(sample, c); });
    return m_bound;
}

}  // namespace sepal::app
