#pragma once
// Counts per sample and population, and each population's median marker values, over the files
// of a cohort: what populations.csv and medians.csv hold.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/cluster/heatmap.h"
#include "core/common/matrix.h"

namespace sepal {

/// Adds up one labelled sample after another; memory stays bounded by the values it keeps.
class PopulationTally {
  public:
    /// Values kept per population for its medians: below this many cells they are exact, above
    /// it they are the medians of a uniform sample of this many (reservoir sampling, seeded).
    static constexpr size_t kKeptPerPopulation = 100000;

    /// populations: their names (code i = populations[i]); markers: the value columns' names.
    PopulationTally(std::vector<std::string> populations, std::vector<std::string> markers,
                    uint64_t seed = 1);
    /// Adds one sample: codes per cell (-1: no population) and the cells' values (cells x
    /// markers, transformed).
    void add(const std::string& sample, const std::vector<int32_t>& codes, const Matrix& values);
    /// Writes sample,population,cells,fraction: a row per sample and population (populations
    /// without cells included, cells without one as "unassigned" when there are any); fraction
    /// of the sample's cells. Atomic; throws InputError.
    void writeCounts(const std::string& path) const;
    /// Writes population,cells,MARKER...: the median of each marker's values per population.
    void writeMedians(const std::string& path) const;
    /// The populations x markers heatmap of the kept values (exact while no population had more
    /// than kKeptPerPopulation cells), with every cell counted.
    Heatmap heatmap() const;

  private:
    struct Sample {
        std::string name;
        std::vector<size_t> cells;  // per population, then unassigned last
        size_t total = 0;
    };
    std::vector<std::string> m_populations, m_markers;
    std::vector<Sample> m_samples;
    std::vector<size_t> m_seen;              // cells seen per population
    std::vector<std::vector<float>> m_kept;  // per population: kept rows x markers
    std::mt19937_64 m_rng;
};

}  // namespace sepal
