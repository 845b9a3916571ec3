#pragma once
// Counts per sample and population, and each population's median marker values over the files
// of a cohort and in each sample: what populations.csv, medians.csv and sample_medians.csv hold.
// Tallies of disjoint sets of samples merge into the tally of all of them, whatever the order (MPI
// ranks each tally their files).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/cluster/heatmap.h"
#include "core/common/matrix.h"

namespace sepal {

/// One row of populations.csv: the cells of a sample in a population.
struct PopulationCount {
    std::string sample;      ///< the sample's name
    std::string population;  ///< the population's name, or "unassigned"
    uint64_t cells = 0;      ///< its cells in the sample
    double fraction = 0;     ///< of the sample's cells (NaN for an empty sample)
};

/// The medians of one sample's cells in one population.
struct SampleMedians {
    std::string sample;          ///< the sample's name
    std::string population;      ///< the population's name
    uint64_t cells = 0;          ///< its cells in the sample
    std::vector<float> medians;  ///< per marker (NaN where it has no finite value)
};

/// Adds up one labelled sample after another; memory stays bounded by the values it keeps.
class PopulationTally {
  public:
    /// Values kept per population for its medians: below this many cells they are exact, above
    /// it they are the medians of a uniform sample of this many: the cells with the smallest
    /// hashed (sample index, cell index) keys, so the sample does not depend on the order in
    /// which samples are added or tallies merged.
    static constexpr size_t kKeptPerPopulation = 100000;

    /// populations: their names (code i = populations[i]); markers: the value columns' names.
    /// With `pooled` false only each sample's values are kept (its medians), not the cohort's
    /// (writeMedians and heatmap then have none): what a comparison of conditions needs.
    PopulationTally(std::vector<std::string> populations, std::vector<std::string> markers,
                    uint64_t seed = 1, bool pooled = true);
    /// Adds one sample, or a block of one: its index in the cohort (the order of the rows in
    /// populations.csv, and part of each cell's sampling key), codes per cell (-1: no
    /// population), the cells' values (cells x markers, transformed), and the index of the
    /// block's first cell in its sample. Blocks of a sample added before join its counts.
    void add(size_t sampleIndex, const std::string& sample, const std::vector<int32_t>& codes,
             const Matrix& values, size_t firstCell = 0);
    /// Renames the markers (the same number of them): the medians' columns.
    void renameMarkers(std::vector<std::string> markers);
    /// The tally as bytes, for merge() in another process. bounds (empty: none): of population
    /// p only the kept rows whose keys are at most bounds[p] (cohortKeyBounds: the rows that
    /// the merge of every process's tally keeps).
    std::string toBytes(const std::vector<uint64_t>& bounds = {}) const;
    /// Each population's kept keys, ascending (its kKeptPerPopulation smallest; all while fewer).
    std::vector<std::vector<uint64_t>> keptKeys() const;
    /// How many populations the tally has (codes 0 .. populationCount() - 1).
    size_t populationCount() const { return m_populations.size(); }
    /// The value columns' names: the medians' columns.
    const std::vector<std::string>& markers() const { return m_markers; }
    /// Adds a tally of other samples (from toBytes() of one with the same populations, markers
    /// and seed); throws InputError when it does not fit.
    void merge(const std::string& bytes);
    /// A row per sample (by sample index) and population (populations without cells
    /// included, cells without one as "unassigned" when there are any).
    std::vector<PopulationCount> counts() const;
    /// Writes counts() as sample,population,cells,fraction. Atomic; throws InputError.
    void writeCounts(const std::string& path) const;
    /// Writes population,cells,MARKER...: the median of each marker's values per population.
    void writeMedians(const std::string& path) const;
    /// Says that every block of a sample has been added: its medians per population are taken
    /// now and the values kept for them let go (a cohort's samples are not all held at once).
    void finishSample(size_t sampleIndex);
    /// Per sample (by sample index) and population: its cells and the medians of its kept values
    /// (exact up to kKeptPerPopulation cells of a population in a sample; NaN without cells).
    std::vector<SampleMedians> sampleMedians() const;
    /// Writes sampleMedians() as sample,population,cells,MARKER...: what differential state
    /// compares between conditions. Atomic; throws InputError.
    void writeSampleMedians(const std::string& path) const;
    /// The populations x markers heatmap of the kept values (exact while no population had more
    /// than kKeptPerPopulation cells), with every cell counted.
    Heatmap heatmap() const;

  private:
    /// A kept row's sampling key and where its values are.
    struct KeySlot {
        uint64_t key;
        uint64_t slot;
    };
    /// The values kept of one population: rows offered with a key below `bound`, trimmed to the
    /// kKeptPerPopulation smallest keys whenever a quarter more have come (O(1) an offer where a
    /// heap took O(log n) cache misses; the smallest keys are the same).
    struct Kept {
        std::vector<KeySlot> entries;  // in no order; past the limit, only until the next trim
        std::vector<float> rows;       // slot x markers
        std::vector<uint64_t> free;    // slots of trimmed rows
        bool trimmed = false;          // once trimmed, keys at or above `bound` are never kept
        uint64_t bound = 0;            // the largest key kept at the last trim
    };
    struct Sample {
        uint64_t index = 0;
        std::string name;
        std::vector<uint64_t> cells;  // per population, then unassigned last
        uint64_t total = 0;
        std::vector<Kept> kept;      // per population, its values in this sample, until finished
        std::vector<float> medians;  // populations x markers, once finished
    };
    /// Keeps a row while its key may be among the kKeptPerPopulation smallest of its population.
    void offer(Kept& kept, uint64_t key, const float* row) const;
    /// The kept entries of a population: its kKeptPerPopulation smallest keys (all while fewer),
    /// in ascending order of key when `ordered` (else in no order).
    static std::vector<KeySlot> smallest(const Kept& kept, bool ordered = true);
    /// The median of each marker's finite kept values (NaN where there are none).
    std::vector<float> keptMedians(const Kept& kept) const;
    /// A sample's medians, populations x markers: taken when finished, else from its kept values.
    std::vector<float> mediansOf(const Sample& sample) const;

    std::vector<std::string> m_populations, m_markers;
    uint64_t m_seed;
    bool m_pooled = true;  // the cohort's values kept besides each sample's
    std::vector<Sample> m_samples;
    std::vector<uint64_t> m_seen;  // cells seen per population
    std::vector<Kept> m_kept;      // per population
};

/// A value as the tally's tables write it (9 significant digits, "NA" when not finite).
std::string tallyNumber(double v);

/// Each population's bound over tallies kept in several places (MPI ranks): the largest of the
/// kKeptPerPopulation smallest kept keys of all of them together (UINT64_MAX where they keep
/// fewer), so that each place sends toBytes(bounds) and the merge keeps what it would keep of
/// everything. Found by bisection on the key: `keysAtMost(bounds)` says, per population, how
/// many kept keys of all the places are at most bounds[p] (a sum over the ranks); 64 calls.
std::vector<uint64_t> cohortKeyBounds(
    size_t populations,
    const std::function<std::vector<uint64_t>(const std::vector<uint64_t>&)>& keysAtMost);

/// How many of each population's keys (keys[p], ascending) are at most bounds[p].
std::vector<uint64_t> keysAtMost(const std::vector<std::vector<uint64_t>>& keys,
                                 const std::vector<uint64_t>& bounds);

}  // namespace sepal
