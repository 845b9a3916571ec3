#pragma once
// The demo dataset: made-up mass cytometry of blood cells, from our own generator.

#include <cstddef>
#include <cstdint>

#include "core/io/table.h"

namespace sepal::demo {

/// Generates `events` cells (seeded, the same on every platform) as a Helios writes them: Time,
/// Event_length, 22 marker channels ("Nd142Di", marker "CD4"), the channels a real panel carries
/// besides (DNA intercalator Ir191Di/Ir193Di "DNA1"/"DNA2", viability Pt195Di "Cisplatin", a
/// palladium barcode Pd104Di..Pd110Di whose markers repeat the isotope, beads Ce140Di "Beads",
/// the Gaussian parameters Center, Offset, Width, Residual), raw ion counts that want arcsinh
/// with cofactor 5, and a numeric "Population" code channel whose names are in the
/// SEPAL_POPULATIONS keyword (15 populations, one rare at ~0.5%, three differentiation
/// trajectories between them).
/// With `stateMarkers`, nine state (function) markers besides the lineage ones, on Er166Di to
/// Yb174Di (pSTAT5, pERK, pS6, Ki67, CD69, IFNg, TNFa, GranzymeB, Perforin), each raised in the
/// populations where cells carry it (granzyme B and perforin in effector CD8 T and CD56dim NK
/// cells, pSTAT5 in Tregs...), drawn from their own stream so every other value is the same.
io::Table makeDemoTable(size_t events = 100000, uint64_t seed = 1, bool stateMarkers = false);

}  // namespace sepal::demo
