#pragma once
// What embed and apply share about gates: a table is cut down to the cells inside them before
// anything else sees it.

#include <cstddef>
#include <vector>

#include "core/gate/gate.h"
#include "core/io/table.h"

namespace sepal::cli {

/// Keeps the table's events that are inside every gate (all without gates); returns how many
/// it kept. Throws InputError when a gate's channel is missing.
size_t keepGatedCells(io::Table& table, const std::vector<Gate>& gates);

}  // namespace sepal::cli
