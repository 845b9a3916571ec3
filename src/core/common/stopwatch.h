#pragma once
// Seconds since a moment: the stage timings that sepal-cli, sepal-bench and the scorers report.

#include <chrono>

namespace sepal {

/// The clock of stage timings (monotonic).
using StageClock = std::chrono::steady_clock;

/// Seconds from `start` to now.
inline double secondsSince(StageClock::time_point start) {
    return std::chrono::duration<double>(StageClock::now() - start).count();
}

/// Seconds on the monotonic clock since an arbitrary moment (differences only: frame times).
inline double monotonicSeconds() {
    return std::chrono::duration<double>(StageClock::now().time_since_epoch()).count();
}

}  // namespace sepal
