#pragma once
// How the programs that stream big blocks (sepal-cli, sepal-bench) use the C library's heap.

namespace sepal {

/// Called first in main, before any thread starts: freed memory stays in one heap for the next
/// allocation, and large blocks come from the heap too instead of being mapped and unmapped
/// each time. A cohort's
/// blocks of millions of values, allocated anew per block, otherwise fault in a zeroed page
/// every 4 KB: reading a 250k-cell FCS file took 3.4 times as long on 2 cores
/// (docs/GPU_NOTES.md, "The cohort, files to files"). Memory stays bounded by the largest blocks
/// alive at once.
void reuseFreedMemory();

}  // namespace sepal
