#include "core/gate/gate_counts_table.h"

#include <cstdio>

#include "core/common/error.h"

#include "core/io/atomic_file.h"
#include "core/io/csv_writer.h"

namespace sepal {

std::string gatePercent(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", v);
    return text;
}

std::string gateCountsCsv(const std::vector<SampleGateCounts>& samples) {
    std::string text = "sample,gate,path,events,parent_events,percent_of_parent,percent_of_all\n";
    for (const SampleGateCounts& s : samples)
        for (const GateCount& c : s.counts)
            text += io::csvField(s.sample) + "," + io::csvField(c.id) + "," + io::csvField(c.path) +
                    "," + std::to_string(c.events) + "," + std::to_string(c.parentEvents) + "," +
                    gatePercent(c.percentOfParent()) + "," + gatePercent(c.percentOfAll()) + "\n";
    return text;
}

GateCountSums::GateCountSums(const GateTree& tree, size_t samples) {
    for (const GatePopulation& p : tree.populations()) m_populations.push_back({p.id, p.path});
    m_values.assign(samples * (2 * m_populations.size() + 1), 0);
}

void GateCountSums::add(size_t sample, const std::vector<GateCount>& block) {
    const size_t width = 2 * m_populations.size() + 1;
    if (block.size() != m_populations.size() || (sample + 1) * width > m_values.size())
        throw InputError("gate counts of " + std::to_string(block.size()) + " populations for " +
                         std::to_string(m_populations.size()));
    uint64_t* row = m_values.data() + sample * width;
    for (size_t p = 0; p < block.size(); ++p) {
        row[2 * p] += block[p].events;
        row[2 * p + 1] += block[p].parentEvents;
    }
    if (!block.empty()) row[width - 1] += block.front().allEvents;
}

void GateCountSums::setValues(std::vector<uint64_t> values) {
    if (values.size() != m_values.size())
        throw InputError("gate counts of " + std::to_string(values.size()) + " values for " +
                         std::to_string(m_values.size()));
    m_values = std::move(values);
}

std::vector<SampleGateCounts> GateCountSums::counts(const std::vector<std::string>& names) const {
    const size_t width = 2 * m_populations.size() + 1;
    std::vector<SampleGateCounts> out;
    for (size_t s = 0; s < names.size() && (s + 1) * width <= m_values.size(); ++s) {
        const uint64_t* row = m_values.data() + s * width;
        SampleGateCounts sample{names[s], m_populations};
        for (size_t p = 0; p < m_populations.size(); ++p) {
            sample.counts[p].events = row[2 * p];
            sample.counts[p].parentEvents = row[2 * p + 1];
            sample.counts[p].allEvents = row[width - 1];
        }
        out.push_back(std::move(sample));
    }
    return out;
}

void writeGateCounts(const std::string& path, const std::vector<SampleGateCounts>& samples) {
    io::AtomicFile file(path);
    file.write(gateCountsCsv(samples));
    file.commit();
}

}  // namespace sepal
