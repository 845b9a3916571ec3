#include "cli/cli_populations.h"

#include <algorithm>

namespace sepal::cli {

void setPopulationColumn(io::Table& table, const std::vector<std::string>& names,
                         const std::vector<int32_t>& codes) {
    std::erase_if(table.labels, [](const io::LabelColumn& l) { return l.name == "population"; });
    table.labels.insert(table.labels.begin(), io::LabelColumn{"population", names, codes});
}

}  // namespace sepal::cli
