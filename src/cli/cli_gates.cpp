#include "cli/cli_gates.h"

#include <algorithm>

#include "cli/cli_progress.h"
#include "core/common/error.h"

namespace sepal::cli {

void keepGatedCells(io::Table& table, const std::vector<Gate>& gates, const std::string& prefix,
                    bool quiet) {
    if (gates.empty()) return;
    const std::vector<uint8_t> inside = insideGates(table, gates);
    const std::string summary = gatedSummary(inside, gates);
    note(quiet, prefix + summary);
    if (std::find(inside.begin(), inside.end(), 1) == inside.end())
        throw InputError(prefix + summary + ": nothing left to embed; check the gates");
    table = io::keepRows(table, inside);
}

}  // namespace sepal::cli
