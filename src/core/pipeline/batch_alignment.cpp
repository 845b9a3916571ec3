#include "core/pipeline/batch_alignment.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>

#include "core/common/error.h"
#include "core/io/atomic_file.h"
#include "core/io/regular_file.h"
#include "core/model/model_panel.h"
#include "core/pipeline/batch_clusters.h"
#include "core/pipeline/batch_scale.h"
#include "core/transform/quantile_map.h"

namespace sepal {

namespace {

constexpr const char* kFormat = "sepal-batch-alignment";

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
    if (clusters > 1) learnAlignmentClusters(out, anchors, batchOf, clusters);
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
        std::vector<double> observed(k), compensated(k), change(k), y(steps), carried;
#pragma omp for schedule(static)
        for (long long i = 0; i < static_cast<long long>(n); ++i) {
            const size_t r = size_t(i);
            scaled.scaledRow(r, observed, compensated, y);
            const size_t group =
                alignment.clusters.empty() ? groups - 1 : own.clusterOf(y, carried);
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
