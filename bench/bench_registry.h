#pragma once
// Benchmarks of sepal-bench register themselves here, one file per benchmark family.

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace sepal::bench {

/// Adds a benchmark subcommand (io, project, knn, train) to sepal-bench.
using BenchAdder = std::function<void(CLI::App&)>;

/// All registered benchmarks, in registration order.
std::vector<BenchAdder>& benchRegistry();

/// Declared at namespace scope in a benchmark's file: `static BenchRegistration reg{addX};`.
struct BenchRegistration {
    /// Registers `adder` to be called when sepal-bench builds its command line.
    explicit BenchRegistration(BenchAdder adder) { benchRegistry().push_back(std::move(adder)); }
};

/// One JSON line's fixed part: machine (CPU model, threads, GPU if any), build (commit,
/// compiler, CUDA version). Benchmarks add their configuration and figures.
std::string contextJson();

}  // namespace sepal::bench
