#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/common/error.h"
#include "core/embedsom/projector.h"

namespace sepal {
namespace {

std::string messageOf(const EmbedParams& p, size_t g) {
    try {
        validateParams(p, g);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(EmbedsomParams, DefaultKIsFloorOfOnePlusSqrtG) {
    EXPECT_EQ(resolveK({}, 100), 11);
    EXPECT_EQ(resolveK({}, 256), 17);
    EXPECT_EQ(resolveK({}, 1024), 33);
    EXPECT_EQ(resolveK({}, 10), 4);
    // Small models: the default is kept within 4 <= k <= g.
    EXPECT_EQ(resolveK({}, 4), 4);
    EXPECT_EQ(resolveK({.k = 7}, 7), 7);
}

TEST(EmbedsomParams, KOutOfRangeNamesTheParameterValueAndRange) {
    const std::string small = messageOf({.k = 3}, 100);
    EXPECT_NE(small.find("k = 3"), std::string::npos) << small;
    EXPECT_NE(small.find("4 <= k <= g = 100"), std::string::npos) << small;
    const std::string large = messageOf({.k = 101}, 100);
    EXPECT_NE(large.find("k = 101"), std::string::npos) << large;
    EXPECT_THROW(resolveK({.k = -5}, 100), InputError);
    EXPECT_THROW(resolveK({}, 3), InputError);
    EXPECT_THROW(resolveK({}, 0), InputError);
}

TEST(EmbedsomParams, SmoothAndAdjustRanges) {
    EXPECT_EQ(messageOf({.smooth = -3.0f, .adjust = 0.0f}, 50), "");
    const std::string s = messageOf({.smooth = -3.5f}, 50);
    EXPECT_NE(s.find("smooth = -3.5"), std::string::npos) << s;
    EXPECT_NE(s.find(">= -3"), std::string::npos) << s;
    const std::string a = messageOf({.adjust = -0.25f}, 50);
    EXPECT_NE(a.find("adjust = -0.25"), std::string::npos) << a;
    EXPECT_NE(a.find(">= 0"), std::string::npos) << a;
    EXPECT_NE(messageOf({.smooth = std::nanf("")}, 50).find("smooth"), std::string::npos);
    EXPECT_NE(messageOf({.adjust = std::numeric_limits<float>::infinity()}, 50).find("adjust"),
              std::string::npos);
}

}  // namespace
}  // namespace sepal
