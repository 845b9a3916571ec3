// sepal-bench: benchmarks that print one JSON object per line (see docs/DEVELOPING.md).

#include <omp.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_registry.h"
#include "core/common/heap.h"
#include "core/common/threads.h"

namespace sepal::bench {

std::vector<BenchAdder>& benchRegistry() {
    static std::vector<BenchAdder> registry;
    return registry;
}

namespace {
std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}
}  // namespace

std::string contextJson() {
    nlohmann::json j;
    j["cpu"] = cpuModel();
    j["threads"] = omp_get_max_threads();
    j["commit"] = std::getenv("SEPAL_COMMIT") ? std::getenv("SEPAL_COMMIT") : "unknown";
    j["compiler"] = SEPAL_COMPILER;
    return j.dump();
}

}  // namespace sepal::bench

int main(int argc, char** argv) {
    sepal::waitPassively(argv);
    sepal::reuseFreedMemory();  // as sepal-cli does, so that the cohort's stages are apply's
    CLI::App app{"sepal-bench: Sepal benchmarks, one JSON object per line"};
    app.require_subcommand(1);
    for (auto& add : sepal::bench::benchRegistry()) add(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sepal-bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
