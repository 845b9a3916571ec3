#pragma once
// The demo dataset: made-up mass cytometry of blood cells, from our own generator.

#include <cstddef>
#include <cstdint>

#include "core/io/table.h"

namespace sepal::demo {

/// Generates `events` cells (seeded, the same on every platform): Time, Event_length, 22 marker
/// channels named like mass cytometry ("Nd142Di", marker "CD4"), raw ion counts that want
/// arcsinh with cofactor 5, and a numeric "Population" code channel whose names are in the
/// SEPAL_POPULATIONS keyword (15 populations, one rare at ~0.5%, three differentiation
/// trajectories between them).
io::Table makeDemoTable(size_t events = 100000, uint64_t seed = 1);

}  // namespace sepal::demo
