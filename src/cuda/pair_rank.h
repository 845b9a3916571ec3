#pragma once
// The pair terms of the list projection in a dense table by the landmarks' locality rank. The
// list projection's warp reads a cell's pairs (u, v) 32 at a time, and the L1 serves a warp's load
// one 128-byte line at a time: in the triangular table by index the 32 pairs lie on 29 lines.
// Landmarks that are near in data space get near ranks here, and the entry of (u, v) sits at
// rank[u] g + rank[v], so that on clustered cells a load's pairs, whose landmarks are all near the
// cell, meet on about 11 lines (a host count: GPU_NOTES.md, "The pair terms by locality rank").
// The values are the triangular table's, so the positions are the same bits. Whole projections
// take it; a range (a training slice) and a drag's few cells keep the triangular table.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/embedsom/locality_rank.h"

namespace sepal::cuda {

/// Whether the list projection reads the dense table for g landmarks (g x g entries of 8 bytes:
/// at most kMaxPairTableLandmarks, the CPU's table's limit, 128 MB) in this process:
/// pairTermsByRankOn() (locality_rank.h, whose localityRanks gives the ranks) and g in range.
bool pairTermsByRankApply(size_t g);

/// dense[rank[u] g + rank[v]] = triangular[pairIndex(u, v)] for every u, v < g (device
/// pointers; dense holds g x g entries).
void launchPairTermsByRank(const float2* triangular, const uint16_t* rank, int g, float2* dense,
                           cudaStream_t stream);

}  // namespace sepal::cuda
