#pragma once
// Seconds since a moment: the stage timings that sepal-cli, sepal-bench and the scorers report.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

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

/// Seconds of each stage, one after another (the stage_s that the scorers and the GPU's k-NN
/// graph report).
struct Stopwatch {
    StageClock::time_point last = StageClock::now();
    std::vector<std::pair<std::string, double>> laps;
    /// Ends the stage `what` now.
    void lap(const std::string& what) {
        laps.emplace_back(what, secondsSince(last));
        last = StageClock::now();
    }
};

}  // namespace sepal
