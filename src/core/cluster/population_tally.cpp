#include "core/cluster/population_tally.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/common/error.h"
#include "core/common/median.h"
#include "core/io/atomic_file.h"
#include "core/io/csv_writer.h"

namespace sepal {

namespace {

/// The shortest text that reads back as v ("NA" for a missing one).
std::string number(double v) {
    if (!std::isfinite(v)) return "NA";
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}

}  // namespace

PopulationTally::PopulationTally(std::vector<std::string> populations,
                                 std::vector<std::string> markers, uint64_t seed)
    : m_populations(std::move(populations)),
      m_markers(std::move(markers)),
      m_seen(m_populations.size(), 0),
      m_kept(m_populations.size()),
      m_rng(seed) {}

void PopulationTally::add(const std::string& sample, const std::vector<int32_t>& codes,
                          const Matrix& values) {
    const size_t k = m_populations.size(), d = m_markers.size();
    if (codes.size() != values.rows || values.cols != d)
        throw InputError("population tally: " + std::to_string(codes.size()) + " codes for " +
                         std::to_string(values.rows) + " x " + std::to_string(values.cols) +
                         " values, expected " + std::to_string(d) + " markers");
    Sample s{sample, std::vector<size_t>(k + 1, 0), codes.size()};
    for (size_t i = 0; i < codes.size(); ++i) {
        const int32_t c = codes[i];
        if (c < 0 || size_t(c) >= k) {
            ++s.cells[k];
            continue;
        }
        ++s.cells[size_t(c)];
        const size_t seen = ++m_seen[size_t(c)];
        auto& kept = m_kept[size_t(c)];
        const float* row = values.row(i);
        if (seen <= kKeptPerPopulation) {
            kept.insert(kept.end(), row, row + d);
        } else {
            // Reservoir sampling: every cell seen so far is kept with the same chance.
            const size_t slot = std::uniform_int_distribution<size_t>(0, seen - 1)(m_rng);
            if (slot < kKeptPerPopulation) std::copy(row, row + d, kept.begin() + long(slot * d));
        }
    }
    m_samples.push_back(std::move(s));
}

void PopulationTally::writeCounts(const std::string& path) const {
    const size_t k = m_populations.size();
    bool anyUnassigned = false;
    for (const auto& s : m_samples) anyUnassigned |= s.cells[k] > 0;
    std::string text = "sample,population,cells,fraction\n";
    for (const auto& s : m_samples)
        for (size_t p = 0; p < k + (anyUnassigned ? 1 : 0); ++p) {
            const std::string name = p < k ? m_populations[p] : "unassigned";
            text += io::csvField(s.name) + "," + io::csvField(name) + "," +
                    std::to_string(s.cells[p]) + "," +
                    number(s.total ? double(s.cells[p]) / double(s.total) : NAN) + "\n";
        }
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

void PopulationTally::writeMedians(const std::string& path) const {
    const size_t d = m_markers.size();
    std::string text = "population,cells";
    for (const auto& m : m_markers) text += "," + io::csvField(m);
    text += "\n";
    std::vector<float> column;
    for (size_t p = 0; p < m_populations.size(); ++p) {
        text += io::csvField(m_populations[p]) + "," + std::to_string(m_seen[p]);
        const auto& kept = m_kept[p];
        const size_t rows = d ? kept.size() / d : 0;
        for (size_t t = 0; t < d; ++t) {
            column.clear();
            for (size_t r = 0; r < rows; ++r)
                if (std::isfinite(kept[r * d + t])) column.push_back(kept[r * d + t]);
            text += "," + number(medianOf(column));
        }
        text += "\n";
    }
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

Heatmap PopulationTally::heatmap() const {
    const size_t d = m_markers.size();
    size_t rows = 0;
    for (const auto& kept : m_kept) rows += d ? kept.size() / d : 0;
    Matrix values(rows, d);
    std::vector<int32_t> codes;
    codes.reserve(rows);
    size_t at = 0;
    for (size_t p = 0; p < m_kept.size(); ++p) {
        std::copy(m_kept[p].begin(), m_kept[p].end(), values.values.begin() + long(at * d));
        const size_t n = d ? m_kept[p].size() / d : 0;
        codes.insert(codes.end(), n, int32_t(p));
        at += n;
    }
    Heatmap h = heatmapOf(values, codes, m_populations, m_markers);
    h.cells = m_seen;
    return h;
}

}  // namespace sepal
