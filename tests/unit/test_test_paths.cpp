#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "test_paths.h"

namespace sepal {

TEST(TestPaths, SourceDirIsThisCheckout) {
    ASSERT_NE(std::getenv("SEPAL_SOURCE_DIR"), nullptr);
    EXPECT_TRUE(std::filesystem::exists(test::sourceDir() / "CMakeLists.txt"));
    EXPECT_TRUE(std::filesystem::exists(test::sourceDir() / "tests" / "test_paths.h"));
}

}  // namespace sepal
