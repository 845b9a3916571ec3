#pragma once
// Sets the pair tables' layout by locality rank (locality_rank.h) for a test's scope.

#include "core/embedsom/locality_rank.h"

namespace sepal::test {

/// Turns the layout by rank on or off for a scope, and back as it was after it.
struct ScopedPairRank {
    explicit ScopedPairRank(bool on) : was(pairTermsByRankOn()) { setPairTermsByRank(on); }
    ~ScopedPairRank() { setPairTermsByRank(was); }
    ScopedPairRank(const ScopedPairRank&) = delete;
    ScopedPairRank& operator=(const ScopedPairRank&) = delete;
    const bool was;  ///< the layout before
};

}  // namespace sepal::test
