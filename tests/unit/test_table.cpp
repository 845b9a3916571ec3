#include <gtest/gtest.h>

#include "core/common/error.h"
#include "core/io/table.h"
#include "core/model/landmark_model.h"

namespace sepal {

TEST(Table, FindsChannelsByNameThenMarkerThenIgnoringCase) {
    io::Table t;
    t.channels = {{"FSC-A", "", 262144, 32}, {"FL1-A", "CD3", 262144, 32}};
    EXPECT_EQ(t.findChannel("FSC-A"), 0);
    EXPECT_EQ(t.findChannel("CD3"), 1);
    EXPECT_EQ(t.findChannel("cd3"), 1);
    EXPECT_EQ(t.findChannel("fl1-a"), 1);
    EXPECT_EQ(t.findChannel("CD4"), -1);
}

TEST(LandmarkModel, RemoveRenumbersEdgesAndBumpsVersions) {
    LandmarkModel m;
    m.resize(3, 2);
    m.edges = {{0, 1}, {1, 2}, {0, 2}};
    const auto v = m.highVersion;
    m.remove(1);
    EXPECT_EQ(m.count(), 2u);
    ASSERT_EQ(m.edges.size(), 1u);
    EXPECT_EQ(m.edges[0], std::make_pair(0u, 1u));
    EXPECT_GT(m.highVersion, v);
    EXPECT_THROW(m.remove(5), InputError);
}

}  // namespace sepal
