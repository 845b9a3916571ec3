#pragma once
// The demo dataset: made-up mass cytometry of blood cells, from our own generator.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

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
/// How one sample differs from the demo's usual blood: what a cohort's samples vary and what a
/// study plants.
struct DemoVariation {
    /// Population name -> factor on its share of the cells (the clusters' cells; cells on the
    /// differentiation paths are left as they are).
    std::map<std::string, double> abundance;
    /// (population name, state marker) -> shift of the marker's level in that population's
    /// cells, in arcsinh(x / 5) units.
    std::map<std::pair<std::string, std::string>, double> stateShift;
};

/// The demo's population names, in the order of their codes in the Population channel.
std::vector<std::string> demoPopulationNames();
/// The demo's state markers (pSTAT5, pERK, ...), in the order of their channels.
std::vector<std::string> demoStateMarkers();

io::Table makeDemoTable(size_t events = 100000, uint64_t seed = 1, bool stateMarkers = false,
                        const DemoVariation& variation = {});

}  // namespace sepal::demo
