#include "cli/cli_gates.h"

#include <algorithm>

namespace sepal::cli {

size_t keepGatedCells(io::Table& table, const std::vector<Gate>& gates) {
    if (gates.empty()) return table.events();
    const std::vector<uint8_t> inside = insideGates(table, gates);
    table = io::keepRows(table, inside);
    return table.events();
}

}  // namespace sepal::cli
