#include "core/pipeline/batch_alignment.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>

#include "core/common/error.h"
#include "core/io/atomic_file.h"
#include "core/io/regular_file.h"
#include "core/knn/nearest_search.h"
#include "core/markers/marker_classes.h"
#include "core/model/model_panel.h"
#include "core/train/init.h"
#include "core/train/lloyd_trainer.h"
#include "core/transform/compensation.h"
#include "core/transform/logicle.h"
#include "core/transform/quantile_map.h"

namespace sepal {

namespace {

// Quantiles of a million events are within a thousandth of a level of all of them, and a
// cohort's batch of 10^8 events would take minutes to sort per marker.
constexpr size_t kMaxQuantileEvents = 1'000'000;

constexpr const char* kFormat = "sepal-batch-alignment";

// The anchors' cells a batch gives the clusters' k-means: enough for a few dozen clusters, and
// balanced, so that a batch with more anchor cells does not place the centres alone.
constexpr size_t kClusterCells = 20'000;
constexpr int kClusterIterations = 30;
// A cluster keeps maps of its own when every batch's anchors have this many cells in it: fewer
// give quantiles of a few cells each, a map from noise to noise.
constexpr size_t kMinClusterCells = 50;

// One channel's transform, forward and back, in double precision.
class ChannelScale {
  public:
    explicit ChannelScale(const ColumnTransform& t) : m_t(t) {
        if (t.kind == ColumnTransform::Kind::Logicle) m_logicle.emplace(t.logicle);
    }
    double forward(double x) const {
        switch (m_t.kind) {
            case ColumnTransform::Kind::Linear:
                return x * m_t.scale + m_t.offset;
            case ColumnTransform::Kind::Arcsinh:
                return std::asinh(x / m_t.cofactor);
            case ColumnTransform::Kind::Logicle:
                return m_logicle->scale(x);
            case ColumnTransform::Kind::None:
                break;
        }
        return x;
    }
    double back(double y) const {
        switch (m_t.kind) {
            case ColumnTransform::Kind::Linear:
                return (y - m_t.offset) / m_t.scale;
            case ColumnTransform::Kind::Arcsinh:
                return std::sinh(y) * m_t.cofactor;
            case ColumnTransform::Kind::Logicle:
                return m_logicle->inverse(y);
            case ColumnTransform::Kind::None:
                break;
        }
        return y;
    }

  private:
    ColumnTransform m_t;
    std::optional<Logicle> m_logicle;
};

// A table read in an alignment's scale: where each channel is, and how it is compensated.
class ScaledTable {
  public:
    ScaledTable(const io::Table& table, const TransformPipeline& scale) : m_table(table) {
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

    size_t steps() const { return m_column.size(); }
    size_t column(size_t s) const { return m_column[s]; }
    int compensatedPosition(size_t s) const { return m_position[s]; }
    const ChannelScale& scale(size_t s) const { return m_scales[s]; }
    size_t compensated() const { return m_comp ? m_comp->columns.size() : 0; }
    size_t compensatedColumn(size_t j) const { return m_comp->columns[j]; }
    // Spill of compensated channel i into observed channel j.
    double spill(size_t i, size_t j) const { return m_spill.at(i, j); }

    // Row r's compensated values (observed times the inverse), into `out` (compensated() long).
    void compensate(size_t r, std::vector<double>& observed, std::vector<double>& out) const {
        const size_t k = compensated();
        const float* row = m_table.values.row(r);
        for (size_t j = 0; j < k; ++j) observed[j] = row[m_comp->columns[j]];
        for (size_t col = 0; col < k; ++col) {
            double v = 0;
            for (size_t j = 0; j < k; ++j) v += observed[j] * m_comp->inverse[j * k + col];
            out[col] = v;
        }
    }

    // Channel s of row r before its transform: compensated (from `compensatedRow`) or raw.
    double value(size_t r, size_t s, const std::vector<double>& compensatedRow) const {
        return m_position[s] >= 0 ? compensatedRow[size_t(m_position[s])]
                                  : double(m_table.values.at(r, m_column[s]));
    }

    // Row r in the scale, one value per step (NaN where not finite), into `out`; `observed` and
    // `compensatedRow` are compensated() long scratch, left holding the row's compensation.
    void scaledRow(size_t r, std::vector<double>& observed, std::vector<double>& compensatedRow,
                   std::vector<double>& out) const {
        if (compensated() > 0) compensate(r, observed, compensatedRow);
        for (size_t s = 0; s < steps(); ++s) {
            const double y = m_scales[s].forward(value(r, s, compensatedRow));
            out[s] = std::isfinite(y) ? y : NAN;
        }
    }

    // Per group (`groupOf` of each scaled row, below `groups`), per channel: the finite scaled
    // values of every stride-th event, sorted.
    template <class GroupOf>
    std::vector<std::vector<std::vector<double>>> sortedColumns(size_t stride, size_t groups,
                                                                GroupOf groupOf) const {
        std::vector<std::vector<std::vector<double>>> out(
            groups, std::vector<std::vector<double>>(steps()));
        std::vector<double> observed(compensated()), row(compensated()), y(steps());
        for (size_t r = 0; r < m_table.events(); r += stride) {
            scaledRow(r, observed, row, y);
            auto& into = out[groupOf(y)];
            for (size_t s = 0; s < steps(); ++s)
                if (!std::isnan(y[s])) into[s].push_back(y[s]);
        }
        for (auto& group : out)
            for (auto& column : group) std::sort(column.begin(), column.end());
        return out;
    }

  private:
    const io::Table& m_table;
    std::vector<size_t> m_column;
    std::vector<int> m_position;
    std::vector<ChannelScale> m_scales;
    std::optional<ResolvedCompensation> m_comp;
    Matrix m_spill;
};

// The batches in order of first appearance.
std::vector<std::string> distinctBatches(const std::vector<std::string>& batchOf) {
    std::vector<std::string> out;
    for (const auto& b : batchOf)
        if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    return out;
}

// One batch's own maps, one per step (none where the batch has no quantiles there), and the
// cluster of a cell as the alignment assigns it: the centre nearest to its cluster steps as
// these maps carry them. Clustered so, a cell of one cell type finds the same cluster in every
// batch, however far its batch has moved it.
class BatchMaps {
  public:
    BatchMaps(const BatchAlignment& alignment, size_t batch)
        : m_alignment(alignment), m_maps(alignment.scale.steps.size()) {
        for (size_t s = 0; s < m_maps.size(); ++s)
            if (!alignment.quantiles[batch][s].empty() && !alignment.goal[s].empty())
                m_maps[s].emplace(alignment.quantiles[batch][s], alignment.goal[s]);
    }

    // The map of step s, or null.
    const QuantileMap* map(size_t s) const { return m_maps[s] ? &*m_maps[s] : nullptr; }

    // The value of step s of the scaled row `y` carried by the batch's map (as it is without).
    double carried(const std::vector<double>& y, size_t s) const {
        return m_maps[s] ? (*m_maps[s])(y[s]) : y[s];
    }

    // The cluster of the scaled row `y` (values that are not finite left out).
    size_t clusterOf(const std::vector<double>& y) const {
        size_t best = 0;
        double bestDistance = INFINITY;
        for (size_t c = 0; c < m_alignment.clusters.size(); ++c) {
            const auto& centre = m_alignment.clusters[c].centre;
            double d = 0;
            for (size_t i = 0; i < centre.size(); ++i) {
                const size_t s = m_alignment.clusterSteps[i];
                if (std::isnan(y[s])) continue;
                const double v = carried(y, s) - centre[i];
                d += v * v;
            }
            if (d < bestDistance) best = c, bestDistance = d;
        }
        return best;
    }

  private:
    const BatchAlignment& m_alignment;
    std::vector<std::optional<QuantileMap>> m_maps;
};

// Per batch, per group (each cell's nearest cluster of `clustering`, or one group of every
// cell when it is null), per channel: the sorted scaled values of that batch's tables, at most
// kMaxQuantileEvents a batch (the same stride in each of its tables).
std::vector<std::vector<std::vector<std::vector<double>>>> batchColumns(
    const std::vector<const io::Table*>& tables, const std::vector<std::string>& batchOf,
    const std::vector<std::string>& batches, const TransformPipeline& scale,
    const BatchAlignment* clustering = nullptr) {
    const size_t groups = clustering ? clustering->clusters.size() : 1;
    std::vector<std::vector<std::vector<std::vector<double>>>> out(
        batches.size(), std::vector<std::vector<std::vector<double>>>(
                            groups, std::vector<std::vector<double>>(scale.steps.size())));
    for (size_t b = 0; b < batches.size(); ++b) {
        std::optional<BatchMaps> maps;
        if (clustering) maps.emplace(*clustering, clustering->batchIndex(batches[b]));
        const auto groupOf = [&](const std::vector<double>& y) {
            return maps ? maps->clusterOf(y) : 0;
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

// The steps cells are clustered on: those whose marker is not a state marker of the catalogue
// (lineage markers tell cell types apart; a stimulation moves the state markers), or every step
// when all are state markers.
std::vector<size_t> clusterStepsOf(const TransformPipeline& scale,
                                   const std::vector<std::string>& markers) {
    std::vector<size_t> out;
    for (size_t s = 0; s < scale.steps.size(); ++s) {
        const auto entry = catalogueEntry(markers[s].empty() ? scale.steps[s].name : markers[s]);
        if (!entry || entry->markerClass != MarkerClass::State) out.push_back(s);
    }
    if (out.empty())
        for (size_t s = 0; s < scale.steps.size(); ++s) out.push_back(s);
    return out;
}

// The anchors' cells k-means clusters on the alignment's cluster steps, as each batch's own
// maps carry them: per batch at most kClusterCells evenly strided cells whose cluster steps are
// all finite, pooled; k-means from k of them drawn with a fixed seed.
std::vector<std::vector<double>> clusterCentres(const std::vector<const io::Table*>& tables,
                                                const std::vector<std::string>& batchOf,
                                                const BatchAlignment& alignment, size_t k) {
    const std::vector<size_t>& steps = alignment.clusterSteps;
    const size_t d = steps.size();
    std::vector<float> rows;
    for (size_t b = 0; b < alignment.batches.size(); ++b) {
        const std::string& batch = alignment.batches[b];
        const BatchMaps maps(alignment, b);
        size_t events = 0;
        for (size_t i = 0; i < tables.size(); ++i)
            if (batchOf[i] == batch) events += tables[i]->events();
        const size_t stride = std::max<size_t>(1, (events + kClusterCells - 1) / kClusterCells);
        for (size_t i = 0; i < tables.size(); ++i) {
            if (batchOf[i] != batch) continue;
            const ScaledTable scaled(*tables[i], alignment.scale);
            std::vector<double> observed(scaled.compensated()), row(scaled.compensated()),
                y(scaled.steps());
            for (size_t r = 0; r < tables[i]->events(); r += stride) {
                scaled.scaledRow(r, observed, row, y);
                if (std::any_of(steps.begin(), steps.end(),
                                [&](size_t s) { return std::isnan(y[s]); }))
                    continue;
                for (const size_t s : steps) rows.push_back(float(maps.carried(y, s)));
            }
        }
    }
    const size_t n = rows.size() / d;
    if (n < k * 2)
        throw InputError("batch alignment: " + std::to_string(k) + " clusters of " +
                         std::to_string(n) +
                         " anchor cells; give fewer clusters (--clusters) or more anchors");
    const TrainingData data{rows.data(), n, d};
    LandmarkModel model;
    initModel(model, data, {InitMethod::Sample, k, 0, 0, 1});
    const auto search = makeCpuNearestSearch();
    for (int iteration = 0; iteration < kClusterIterations; ++iteration)
        lloydStep(model, data, *search);
    std::vector<std::vector<double>> centres;
    for (size_t c = 0; c < k; ++c) centres.emplace_back(model.highRow(c), model.highRow(c) + d);
    return centres;
}

std::vector<double> numbers(const nlohmann::json& j, const std::string& where) {
    if (!j.is_array()) throw InputError(where + " is not a list of numbers");
    std::vector<double> out;
    for (const auto& v : j) {
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            throw InputError(where + " holds something other than a finite number");
        out.push_back(v.get<double>());
    }
    if (!std::is_sorted(out.begin(), out.end())) throw InputError(where + " is not ascending");
    return out;
}

// Per step: the quantiles of the batches that have any there, averaged level by level (empty
// where none has).
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

// Clusters the anchors' cells into `k` and learns each cluster's quantiles and goal, where
// every batch's anchors have kMinClusterCells cells in it.
void learnClusters(BatchAlignment& out, const std::vector<const io::Table*>& anchors,
                   const std::vector<std::string>& batchOf, size_t k) {
    out.clusterSteps = clusterStepsOf(out.scale, out.markers);
    for (auto& centre : clusterCentres(anchors, batchOf, out, k))
        out.clusters.push_back({std::move(centre), {}, {}});
    const auto columns = batchColumns(anchors, batchOf, out.batches, out.scale, &out);
    for (size_t c = 0; c < k; ++c) {
        AlignmentCluster& cluster = out.clusters[c];
        size_t fewest = SIZE_MAX;
        for (size_t b = 0; b < out.batches.size(); ++b) {
            size_t cells = 0;
            for (const auto& column : columns[b][c]) cells = std::max(cells, column.size());
            fewest = std::min(fewest, cells);
        }
        if (fewest < kMinClusterCells) continue;
        cluster.quantiles.resize(out.batches.size());
        for (size_t b = 0; b < out.batches.size(); ++b)
            for (const auto& column : columns[b][c])
                cluster.quantiles[b].push_back(quantilesOfSorted(column, out.levels));
        cluster.goal = meanGoal(cluster.quantiles, out.levels.size());
    }
}

}  // namespace

nlohmann::json BatchAlignment::toJson() const {
    nlohmann::json batchList = nlohmann::json::array();
    for (size_t b = 0; b < batches.size(); ++b)
        batchList.push_back({{"name", batches[b]}, {"quantiles", quantiles[b]}});
    nlohmann::json out = {{"format", kFormat},   {"version", 1},     {"scale", scale.toJson()},
                          {"markers", markers},  {"levels", levels}, {"goal", goal},
                          {"batches", batchList}};
    if (clusters.empty()) return out;
    nlohmann::json channels = nlohmann::json::array(), clusterList = nlohmann::json::array();
    for (const size_t step : clusterSteps) channels.push_back(scale.steps[step].name);
    for (const auto& c : clusters)
        clusterList.push_back({{"centre", c.centre}, {"quantiles", c.quantiles}, {"goal", c.goal}});
    out["cluster_channels"] = channels;
    out["clusters"] = clusterList;
    return out;
}

BatchAlignment BatchAlignment::fromJson(const nlohmann::json& json, const std::string& where) {
    if (!json.is_object() || !json.contains("format") || !json["format"].is_string() ||
        json["format"].get<std::string>() != kFormat)
        throw InputError(where + ": not a batch alignment (\"format\": \"" + kFormat + "\")");
    BatchAlignment out;
    if (!json.contains("scale")) throw InputError(where + ": no \"scale\"");
    out.scale = TransformPipeline::fromJson(json["scale"]);
    out.levels = numbers(json.value("levels", nlohmann::json()), where + ": \"levels\"");
    if (out.levels.size() < 2 || out.levels.front() < 0 || out.levels.back() > 1)
        throw InputError(where + ": \"levels\" must be at least two levels from 0 to 1");
    const size_t steps = out.scale.steps.size();
    const auto markers = json.value("markers", nlohmann::json());
    if (!markers.is_array() || markers.size() != steps ||
        !std::all_of(markers.begin(), markers.end(), [](const auto& m) { return m.is_string(); }))
        throw InputError(where + ": \"markers\" must name one marker per channel (" +
                         std::to_string(steps) + "), \"\" for none");
    for (const auto& m : markers) out.markers.push_back(m.get<std::string>());
    const auto perChannel = [&](const nlohmann::json& j, const std::string& what, bool mayBeEmpty) {
        if (!j.is_array() || j.size() != steps)
            throw InputError(where + ": " + what + " must hold one list per channel (" +
                             std::to_string(steps) + ")");
        std::vector<std::vector<double>> lists;
        for (size_t s = 0; s < steps; ++s) {
            const std::string at = what + " of " + out.scale.steps[s].name;
            lists.push_back(numbers(j[s], where + ": " + at));
            if (!(lists.back().size() == out.levels.size() || (mayBeEmpty && lists.back().empty())))
                throw InputError(where + ": " + at + " must hold one number per level (" +
                                 std::to_string(out.levels.size()) + ")");
        }
        return lists;
    };
    out.goal = perChannel(json.value("goal", nlohmann::json()), "\"goal\"", true);
    const auto batchList = json.value("batches", nlohmann::json());
    if (!batchList.is_array() || batchList.size() < 2)
        throw InputError(where + ": \"batches\" must list at least two batches");
    for (const auto& b : batchList) {
        if (!b.is_object() || !b.contains("name") || !b["name"].is_string())
            throw InputError(where + ": a batch without a \"name\"");
        const std::string name = b["name"].get<std::string>();
        if (std::find(out.batches.begin(), out.batches.end(), name) != out.batches.end())
            throw InputError(where + ": batch \"" + name + "\" is listed twice");
        out.batches.push_back(name);
        out.quantiles.push_back(perChannel(b.value("quantiles", nlohmann::json()),
                                           "the quantiles of batch \"" + name + "\"", true));
    }
    if (!json.contains("clusters")) return out;
    const auto channels = json.value("cluster_channels", nlohmann::json());
    if (!channels.is_array() || channels.empty())
        throw InputError(where + ": \"cluster_channels\" must name the channels clustered on");
    for (const auto& c : channels) {
        const auto step = std::find_if(
            out.scale.steps.begin(), out.scale.steps.end(),
            [&](const ColumnStep& st) { return c.is_string() && st.name == c.get<std::string>(); });
        if (step == out.scale.steps.end())
            throw InputError(where + ": \"cluster_channels\" names " + c.dump() +
                             ", not a channel of the scale");
        out.clusterSteps.push_back(size_t(step - out.scale.steps.begin()));
    }
    const auto clusterList = json["clusters"];
    if (!clusterList.is_array() || clusterList.size() < 2)
        throw InputError(where + ": \"clusters\" must list at least two clusters");
    for (size_t c = 0; c < clusterList.size(); ++c) {
        const std::string at = "cluster " + std::to_string(c + 1);
        const auto& j = clusterList[c];
        if (!j.is_object()) throw InputError(where + ": " + at + " is not an object");
        AlignmentCluster cluster;
        const auto centre = j.value("centre", nlohmann::json());
        if (!centre.is_array() || centre.size() != out.clusterSteps.size() ||
            !std::all_of(centre.begin(), centre.end(),
                         [](const auto& v) { return v.is_number() && std::isfinite(double(v)); }))
            throw InputError(where + ": " + at +
                             "'s \"centre\" must hold one finite number per "
                             "cluster channel (" +
                             std::to_string(out.clusterSteps.size()) + ")");
        for (const auto& v : centre) cluster.centre.push_back(v.get<double>());
        const auto quantiles = j.value("quantiles", nlohmann::json::array());
        if (!quantiles.is_array() || !(quantiles.empty() || quantiles.size() == out.batches.size()))
            throw InputError(where + ": " + at + "'s \"quantiles\" must hold one list per batch (" +
                             std::to_string(out.batches.size()) + "), or none");
        for (size_t b = 0; b < quantiles.size(); ++b)
            cluster.quantiles.push_back(perChannel(
                quantiles[b], at + "'s quantiles of batch \"" + out.batches[b] + "\"", true));
        if (cluster.mapped())
            cluster.goal = perChannel(j.value("goal", nlohmann::json()), at + "'s \"goal\"", true);
        out.clusters.push_back(std::move(cluster));
    }
    return out;
}

size_t BatchAlignment::batchIndex(const std::string& batch) const {
    const auto it = std::find(batches.begin(), batches.end(), batch);
    if (it != batches.end()) return size_t(it - batches.begin());
    std::string list;
    for (const auto& b : batches) list += (list.empty() ? "" : ", ") + b;
    throw InputError("batch \"" + batch +
                     "\" was not learnt by the alignment (its batches: " + list + ")");
}

BatchAlignment readBatchAlignment(const std::string& path) {
    io::requireRegularFile(path);
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot open the batch alignment");
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(path + ": not valid JSON (" + e.what() + ")");
    }
    return BatchAlignment::fromJson(json, path);
}

void writeBatchAlignment(const std::string& path, const BatchAlignment& alignment) {
    io::writeFileAtomically(path,
                            [&](std::ostream& out) { out << alignment.toJson().dump(1) << '\n'; });
}

TransformPipeline alignmentScale(const io::Table& table, PrepareOptions options) {
    options.allMarkers = true;
    TransformPipeline scale = choosePipeline(table, options);
    if (!options.spilloverFile.empty()) useSpilloverFile(scale, options.spilloverFile);
    for (ColumnStep& step : scale.steps) {
        step.zscore = false;
        step.mean.reset();
        step.sd.reset();
        step.weight = 1.0;
    }
    return scale;
}

BatchAlignment learnBatchAlignment(const std::vector<const io::Table*>& anchors,
                                   const std::vector<std::string>& batchOf,
                                   const TransformPipeline& scale, size_t levels, size_t clusters) {
    if (anchors.size() != batchOf.size())
        throw InputError("batch alignment: " + std::to_string(anchors.size()) + " anchors but " +
                         std::to_string(batchOf.size()) + " batches given for them");
    BatchAlignment out;
    out.scale = scale;
    out.levels = evenLevels(levels);
    out.batches = distinctBatches(batchOf);
    if (out.batches.size() < 2)
        throw InputError("batch alignment needs anchors in at least two batches; " +
                         (out.batches.empty() ? std::string("none were given")
                                              : "all are in batch \"" + out.batches[0] + "\""));
    out.markers = columnMarkers(*anchors.front(), scale.columns());
    const auto columns = batchColumns(anchors, batchOf, out.batches, scale);
    out.quantiles.resize(out.batches.size());
    for (size_t b = 0; b < out.batches.size(); ++b)
        for (const auto& column : columns[b][0])
            out.quantiles[b].push_back(quantilesOfSorted(column, out.levels));
    for (size_t b = 0; b < out.batches.size(); ++b)
        if (std::all_of(out.quantiles[b].begin(), out.quantiles[b].end(),
                        [](const auto& q) { return q.empty(); }))
            throw InputError("batch \"" + out.batches[b] +
                             "\" has no anchor cell to learn from (none in the gates' "
                             "population, or no finite value)");
    out.goal = meanGoal(out.quantiles, out.levels.size());
    if (clusters > 1) learnClusters(out, anchors, batchOf, clusters);
    return out;
}

void checkAlignable(const io::Table& table, const BatchAlignment& alignment,
                    const std::string& batch) {
    alignment.batchIndex(batch);
    [[maybe_unused]] const ScaledTable scaled(table, alignment.scale);  // finds every channel
    // The anchors' panel as a table of channels, compared as samples opened together are.
    io::Table anchors;
    anchors.source = "the alignment's anchors";
    for (size_t s = 0; s < alignment.scale.steps.size(); ++s)
        anchors.channels.push_back({alignment.scale.steps[s].name, alignment.markers[s], 0, 32});
    io::Table names;  // the table's channels without its values
    names.source = table.source;
    names.channels = table.channels;
    checkSamplesPanel({anchors, names}, "");
}

io::Table alignTable(const io::Table& table, const BatchAlignment& alignment,
                     const std::string& batch) {
    checkAlignable(table, alignment, batch);
    const size_t b = alignment.batchIndex(batch);
    const ScaledTable scaled(table, alignment.scale);
    // Per group (each cluster, then the batch's own maps as the last), per step: its map, or
    // null where the step is left as it is; a cluster without maps takes the batch's.
    const BatchMaps own(alignment, b);
    const size_t steps = scaled.steps(), groups = alignment.clusters.size() + 1;
    std::vector<QuantileMap> clusterMaps(groups * steps);
    std::vector<const QuantileMap*> mapOf(groups * steps, nullptr);
    for (size_t s = 0; s < steps; ++s) mapOf[(groups - 1) * steps + s] = own.map(s);
    for (size_t c = 0; c < alignment.clusters.size(); ++c) {
        const AlignmentCluster& cluster = alignment.clusters[c];
        for (size_t s = 0; s < steps; ++s) {
            const size_t at = c * steps + s;
            mapOf[at] = own.map(s);
            if (!cluster.mapped() || cluster.quantiles[b][s].empty() || cluster.goal[s].empty())
                continue;
            clusterMaps[at] = QuantileMap(cluster.quantiles[b][s], cluster.goal[s]);
            mapOf[at] = &clusterMaps[at];
        }
    }
    io::Table out = table;
    const size_t n = table.events(), k = scaled.compensated();
#pragma omp parallel if (n > 4096)
    {
        std::vector<double> observed(k), compensated(k), change(k), y(steps);
#pragma omp for schedule(static)
        for (long long i = 0; i < static_cast<long long>(n); ++i) {
            const size_t r = size_t(i);
            scaled.scaledRow(r, observed, compensated, y);
            const size_t group = alignment.clusters.empty() ? groups - 1 : own.clusterOf(y);
            const QuantileMap* const* map = &mapOf[group * steps];
            std::fill(change.begin(), change.end(), 0.0);
            for (size_t s = 0; s < steps; ++s) {
                if (!map[s] || std::isnan(y[s])) continue;
                const double v = scaled.value(r, s, compensated);
                const double aligned = scaled.scale(s).back((*map[s])(y[s]));
                if (!std::isfinite(aligned)) continue;
                if (const int p = scaled.compensatedPosition(s); p >= 0)
                    change[size_t(p)] = aligned - v;
                else
                    out.values.at(r, scaled.column(s)) = float(aligned);
            }
            // A compensated channel's change reaches the detectors through the spillover:
            // observed = compensated x spillover, so compensating the file gives the aligned
            // values, and channels left alone keep theirs.
            for (size_t j = 0; j < k; ++j) {
                double moved = 0;
                for (size_t c = 0; c < k; ++c) moved += change[c] * scaled.spill(c, j);
                if (moved != 0)
                    out.values.at(r, scaled.compensatedColumn(j)) = float(observed[j] + moved);
            }
        }
    }
    out.keywords.erase(std::remove_if(out.keywords.begin(), out.keywords.end(),
                                      [](const auto& kv) { return kv.first == "SEPAL_BATCH"; }),
                       out.keywords.end());
    out.keywords.emplace_back("SEPAL_BATCH", batch);
    return out;
}

std::vector<BatchGap> batchGaps(const std::vector<const io::Table*>& before,
                                const std::vector<const io::Table*>& after,
                                const std::vector<std::string>& batchOf,
                                const BatchAlignment& alignment) {
    const std::vector<std::string> batches = distinctBatches(batchOf);
    const auto columnsBefore = batchColumns(before, batchOf, batches, alignment.scale);
    const auto columnsAfter = batchColumns(after, batchOf, batches, alignment.scale);
    const auto meanGap = [&](const auto& columns, size_t s) {
        double sum = 0;
        size_t pairs = 0;
        for (size_t a = 0; a < batches.size(); ++a)
            for (size_t b = a + 1; b < batches.size(); ++b) {
                if (columns[a][0][s].empty() || columns[b][0][s].empty()) continue;
                sum += earthMoversDistance(columns[a][0][s], columns[b][0][s]);
                ++pairs;
            }
        return pairs ? sum / double(pairs) : 0.0;
    };
    std::vector<BatchGap> out;
    const io::Table* first = before.empty() ? nullptr : before.front();
    for (size_t s = 0; s < alignment.scale.steps.size(); ++s) {
        std::string name = alignment.scale.steps[s].name;
        if (first)
            if (const int c = first->findChannel(name);
                c >= 0 && !first->channels[size_t(c)].marker.empty())
                name = first->channels[size_t(c)].marker;
        out.push_back({name, meanGap(columnsBefore, s), meanGap(columnsAfter, s)});
    }
    return out;
}

}  // namespace sepal
