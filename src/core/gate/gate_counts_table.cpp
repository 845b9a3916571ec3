#include "core/gate/gate_counts_table.h"

#include <cstdio>

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

void writeGateCounts(const std::string& path, const std::vector<SampleGateCounts>& samples) {
    io::AtomicFile file(path);
    file.write(gateCountsCsv(samples));
    file.commit();
}

}  // namespace sepal
