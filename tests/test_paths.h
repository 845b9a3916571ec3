#pragma once
// Where tests find real data: ../shared/data beside the checkout, and the project's own files.

#include <cstdlib>
#include <filesystem>
#include <string>

namespace sepal::test {

/// ../shared/data (env SEPAL_SHARED_DATA overrides); may not exist: tests then GTEST_SKIP().
inline std::filesystem::path sharedDataDir() {
    if (const char* env = std::getenv("SEPAL_SHARED_DATA")) return env;
    return SEPAL_TEST_SHARED_DATA_DIR;
}

/// The project's source tree (for data/demo.fcs and test inputs).
inline std::filesystem::path sourceDir() {
    if (const char* env = std::getenv("SEPAL_SOURCE_DIR")) return env;
    return SEPAL_TEST_SOURCE_DIR;
}

/// A plain message for tests skipped because ../shared/data is absent.
inline std::string sharedDataMissing(const std::filesystem::path& what) {
    return "skipped: " + what.string() +
           " is absent (real test data lives in ../shared/data beside the checkout)";
}

}  // namespace sepal::test
