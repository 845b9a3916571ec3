#pragma once
// The workspace's populations: brushed, merged, split, made from the landmarks as sepal-cli
// embed --metaclusters makes them, carried by model files both ways, counted and summarised.

#include <cstdint>
#include <string>
#include <vector>

#include "app/service.h"
#include "core/cluster/batch_bound.h"
#include "core/cluster/heatmap.h"
#include "core/cluster/population_tally.h"
#include "core/model/model_file.h"
#include "core/model/model_populations.h"
#include "core/transform/pipeline.h"

namespace sepal::app {

/// The populations a model file carries, as the app makes them.
struct ModelLabels {
    std::vector<ModelPopulation> populations;  ///< named landmark sets
    PopulationRegions regions;                 ///< the lasso strokes (may be none)
    size_t disagreeing = 0;  ///< gated cells the model labels otherwise than the picture
};

/// The state markers the embedding leaves out, with their values: what medians and the heatmap
/// add to the embedded columns, as sepal-cli keeps them beside (chooseStatePipeline).
struct StateColumns {
    TransformPipeline pipeline;        ///< the state markers' transforms (none: no columns)
    std::vector<std::string> markers;  ///< each column's marker (else channel) name
    Matrix values;                     ///< events x columns, transformed
};

/// Every edit and summary of the populations.
class PopulationService : public Service {
  public:
    using Service::Service;

    /// Puts the cells inside the polygon (world units, x y pairs) into population `name`
    /// (created when new); with `onlyFrom`, only that population's cells move (a split).
    /// Returns how many cells were brushed.
    size_t brush(const std::vector<float>& polygon, const std::string& name,
                 const std::string& onlyFrom = {});
    /// Deletes population i (its cells become unassigned).
    void remove(size_t i);
    /// Renames or recolours population i.
    void edit(size_t i, const Population& p);
    /// Merges population `from` into `into` (its cells join `into`; one undo step).
    void merge(size_t from, size_t into);
    /// Replaces the populations by k metaclusters of the landmarks (sepal-cli embed
    /// --metaclusters: the same groups, cells and names), one undo step; errors are logged.
    void fromLandmarks(size_t k);
    /// Labels the cells with a model file's populations (each cell: its nearest landmark's, then
    /// the regions drawn), one undo step; nothing when there are none.
    void adoptModel(const LoadedModel& loaded, const std::string& source);

    /// Cells in each population (counted again only when the populations or the data changed:
    /// the Populations window asks every frame, and 10^8 cells take a tenth of a second).
    const std::vector<size_t>& sizes() const;
    /// The rows of populations.csv for the open data, as sepal-cli apply counts them (none
    /// without populations).
    std::vector<PopulationCount> counts() const;
    /// The populations that lie in one batch of the metadata's column `batchColumn` (core's
    /// batchBoundPopulations over counts(); none without populations or such a column), counted
    /// again only when the data, populations, gates, metadata or column change.
    const std::vector<BatchBoundPopulation>& batchBound(const std::string& batchColumn) const;
    /// The open data's populations counted per sample (with their values for the medians when
    /// `withValues`), as sepal-cli apply counts a cohort.
    PopulationTally tally(bool withValues) const;
    /// The populations counted per sample with only the state markers' values (the embedded
    /// state markers, then those beside) and no pooled values: the samples' medians that
    /// differential state compares, the same as tally(true) gives for those columns.
    PopulationTally stateTally() const;
    /// The names of stateTally()'s columns.
    std::vector<std::string> stateColumnNames() const;
    /// The populations x markers heatmap of the open data (core's heatmapOf), the state markers
    /// after the embedded ones.
    Heatmap heatmap() const;
    /// The state markers beside the embedded columns, with the user's classes (computed again
    /// only when the data, the pipeline or the classes change).
    const StateColumns& stateColumns() const;
    /// The classes of the tally's columns: the embedded ones', then state for each state column.
    std::vector<MarkerClass> tallyClasses() const;
    /// The populations as the model file carries them: landmark sets and the regions drawn (or,
    /// for populations of unknown making, each landmark in the population most of its cells are
    /// in), with how many gated cells the model would label otherwise than the picture does.
    ModelLabels ofModel() const;

  private:
    /// The tally of the embedded columns `columns` and, with `extra`, the state columns beside.
    PopulationTally tallyOf(const std::vector<size_t>& columns, bool extra, bool pooled) const;
    // sizes() of the populations and data versions in m_sizesKey.
    mutable std::vector<size_t> m_sizes;
    mutable uint64_t m_sizesKey = ~0ull;
    // batchBound() and what it was counted from.
    mutable std::vector<BatchBoundPopulation> m_bound;
    mutable std::string m_boundKey;
    // stateColumns() and what it was made from.
    mutable StateColumns m_state;
    mutable std::string m_stateKey;
};

}  // namespace sepal::app
