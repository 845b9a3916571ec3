#pragma once
// Generated data for benchmarks and tests: Gaussian clusters in d dimensions, seeded.

#include <cstddef>
#include <cstdint>

#include "core/io/table.h"

namespace sepal::app {

/// n events in d channels drawn from `clusters` Gaussian clusters (values already on a transformed
/// scale, channel range 10 so they stay linear); a "cluster" label column; deterministic in seed.
io::Table makeSyntheticTable(size_t n, size_t d = 10, size_t clusters = 8, uint64_t seed = 1);

}  // namespace sepal::app
