#include "core/pipeline/batch_clusters.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/markers/marker_classes.h"
#include "core/pipeline/batch_scale.h"
#include "core/train/init.h"
#include "core/train/lloyd_trainer.h"

namespace sepal {

namespace {

// The anchors' cells a batch gives the clusters' k-means: enough for a few dozen clusters, and
// balanced, so that a batch with more anchor cells does not place the centres alone.
constexpr size_t kClusterCells = 20'000;
constexpr int kClusterIterations = 30;
// A cluster keeps maps of its own when every batch's anchors have this many cells in it: fewer
// give quantiles of a few cells each, a map from noise to noise.
constexpr size_t kMinClusterCells = 50;

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

}  // namespace

void learnAlignmentClusters(BatchAlignment& out, const std::vector<const io::Table*>& anchors,
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

}  // namespace sepal
