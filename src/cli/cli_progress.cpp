#include "cli/cli_progress.h"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "core/common/threads.h"

namespace sepal::cli {

ProgressFn stderrProgress(bool quiet) {
    if (quiet) return {};
    // Print at most every quarter second per stage, plus each stage's end, so logs stay short.
    struct State {
        std::string stage;
        std::chrono::steady_clock::time_point last;
    };
    auto state = std::make_shared<State>();
    return [state](const std::string& stage, double fraction) {
        const auto now = std::chrono::steady_clock::now();
        const bool newStage = stage != state->stage;
        if (!newStage && fraction < 1.0 && now - state->last < std::chrono::milliseconds(250))
            return;
        state->stage = stage;
        state->last = now;
        std::fprintf(stderr, "sepal-cli: %s %3.0f%%\n", stage.c_str(), fraction * 100.0);
    };
}

void note(bool quiet, const std::string& text) {
    if (!quiet) std::fprintf(stderr, "sepal-cli: note: %s\n", text.c_str());
}

void warn(const std::string& text) {
    std::fprintf(stderr, "sepal-cli: warning: %s\n", text.c_str());
}

void setThreads(int threads) {
    checkThreadCount(threads, "--threads");
    if (threads > 0) omp_set_num_threads(threads);
}

}  // namespace sepal::cli
