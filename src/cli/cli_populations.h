#pragma once
// What embed and apply share about populations: the population label column written into each
// output.

#include <string>
#include <vector>

#include "core/io/table.h"

namespace sepal::cli {

/// Makes the population label column ("population": names, codes per event, -1 for none) the
/// table's first label column, replacing one of that name, so that the exports write it.
void setPopulationColumn(io::Table& table, const std::vector<std::string>& names,
                         const std::vector<int32_t>& codes);

}  // namespace sepal::cli
