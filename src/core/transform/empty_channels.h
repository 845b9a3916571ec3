#pragma once
// Columns without a single finite value (a column of NA, an unwritten channel): the default
// pipelines leave them out, since no event could be trained on with them.

#include <cstddef>
#include <string>
#include <vector>

#include "core/io/table.h"

namespace sepal {

/// Indices of the channels of `table` whose every value is NaN or infinite (none when the table
/// has no events).
std::vector<size_t> emptyChannels(const io::Table& table);

/// What to tell the user about channel `index` that emptyChannels found: which channel, and that
/// it is left out of the embedding.
std::string emptyChannelNote(const io::Table& table, size_t index);

}  // namespace sepal
