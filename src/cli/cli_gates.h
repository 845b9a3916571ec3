#pragma once
// What embed and apply share about gates: a table is cut down to the cells inside them before
// anything else sees it.

#include <string>
#include <vector>

#include "core/gate/gate.h"
#include "core/io/table.h"

namespace sepal::cli {

/// Keeps the table's events that are inside every gate (nothing without gates) and notes how
/// many, beginning with `prefix`, unless `quiet`. Throws InputError when a gate's channel is
/// missing or no event is left.
void keepGatedCells(io::Table& table, const std::vector<Gate>& gates, const std::string& prefix,
                    bool quiet);

}  // namespace sepal::cli
