// Gives every gtest binary the environment that the command-line tests get from ctest, so that a
// test may ask getenv("SEPAL_SHARED_DATA") or getenv("SEPAL_SOURCE_DIR") however it is started.

#include <cstdlib>

namespace {
const bool kEnvironmentSet = [] {
    setenv("SEPAL_SHARED_DATA", SEPAL_TEST_SHARED_DATA_DIR, 0);
    setenv("SEPAL_SOURCE_DIR", SEPAL_TEST_SOURCE_DIR, 0);
    return true;
}();
}  // namespace
