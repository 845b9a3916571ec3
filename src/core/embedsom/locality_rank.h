#pragma once
// A locality order of the landmarks for the pair tables' layout: the CPU's PairConstants and the
// GPU's list projection store the terms of pair (u, v) at (rank[u], rank[v]), so that the pairs of
// one cell, whose landmarks all lie near it, share cache lines (on clustered cells a warp's load
// of 32 pairs touches about 11 lines instead of 29: GPU_NOTES.md, "The pair terms by locality
// rank"). A layout only: any ranks give the same values, so the same positions.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal {

/// Whether the pair tables are laid out by locality rank in this process: on unless
/// SEPAL_PAIR_RANK=0 or setPairTermsByRank(false).
bool pairTermsByRankOn();
/// Turns the layout by rank on or off for the process (the tests and benchmarks compare the two).
void setPairTermsByRank(bool on);

/// A rank for each of the g landmarks (g x d, row-major; g <= 65536) such that nearby landmarks
/// get nearby ranks: the set halved at the median of its widest coordinate until parts of 8
/// remain, the ranks in the order of the parts (NaN coordinates sort last). g d log g steps:
/// 0.25 ms at g 1024, d 32 on the 2-core machine.
std::vector<uint16_t> localityRanks(const float* landmarks, size_t g, size_t d);

}  // namespace sepal
