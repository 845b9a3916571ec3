#pragma once
// Progress and notes on stderr for long sepal-cli work; stdout stays free for results.

#include <string>

#include "core/pipeline/embed_pipeline.h"

namespace sepal::cli {

/// A progress callback that prints "stage: NN%" lines to stderr (nothing when `quiet`).
ProgressFn stderrProgress(bool quiet);

/// Prints "sepal-cli: note: <text>" to stderr unless `quiet`.
void note(bool quiet, const std::string& text);

/// Prints "sepal-cli: warning: <text>" to stderr, also with --quiet (which silences progress,
/// not what may be wrong with the data).
void warn(const std::string& text);

/// Applies --threads (0 keeps OpenMP's default); throws InputError outside 0..maxThreadCount().
void setThreads(int threads);

}  // namespace sepal::cli
