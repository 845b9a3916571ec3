#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/demo/demo_data.h"
#include "core/io/read_any.h"
#include "core/transform/channel_roles.h"
#include "core/transform/pipeline.h"
#include "test_paths.h"

namespace sepal {

TEST(DemoData, IsDeterministicForASeed) {
    const io::Table a = demo::makeDemoTable(5000, 7);
    const io::Table b = demo::makeDemoTable(5000, 7);
    const io::Table c = demo::makeDemoTable(5000, 8);
    EXPECT_EQ(a.values.values, b.values.values);
    EXPECT_NE(a.values.values, c.values.values);
    // Time, Event_length, 22 markers, 5 barcodes, beads, 2 DNA, viability, 4 Gaussian, population.
    EXPECT_EQ(a.channels.size(), 38u);
    // Mass cytometry counts: skewed, non-negative, with many zeros for negative markers.
    const auto& v = a.values.values;
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0f);
    EXPECT_GT(std::count(v.begin(), v.end(), 0.0f), static_cast<long>(v.size() / 10));
}

TEST(DemoData, CommittedFileHoldsTheGeneratedPopulations) {
    const auto path = test::sourceDir() / "data" / "demo.fcs";
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    const io::Table t = io::readTable(path.string());
    ASSERT_EQ(t.labels.size(), 1u);
    const io::LabelColumn& population = t.labels[0];
    EXPECT_EQ(population.name, "Population");
    ASSERT_EQ(population.categories.size(), 15u);
    EXPECT_EQ(population.categories.front(), "Naive CD4 T");
    EXPECT_EQ(t.events(), 100000u);
    EXPECT_EQ(t.channels.size(), 37u);
    // The file is what the generator makes with its defaults (float32 round-trips exactly).
    const io::Table fresh = demo::makeDemoTable();
    for (size_t i = 0; i < t.events(); i += 997)
        for (size_t j = 0; j < t.channels.size(); ++j)
            ASSERT_EQ(t.values.at(i, j), fresh.values.at(i, j)) << i << "," << j;
    // Every population is present; the rare one is about half a percent.
    std::vector<size_t> counts(population.categories.size(), 0);
    for (int32_t code : population.codes) {
        ASSERT_GE(code, 0);
        ++counts[static_cast<size_t>(code)];
    }
    for (size_t count : counts) EXPECT_GT(count, 300u);
    const auto rare =
        std::find(population.categories.begin(), population.categories.end(), "Plasmacytoid DC");
    ASSERT_NE(rare, population.categories.end());
    const size_t rareCount = counts[static_cast<size_t>(rare - population.categories.begin())];
    EXPECT_GT(rareCount, 300u);
    EXPECT_LT(rareCount, 800u);
    // The default pipeline recognises mass cytometry and keeps only the 22 markers.
    const TransformPipeline p = TransformPipeline::defaultFor(t);
    EXPECT_EQ(p.steps.size(), 22u);
    EXPECT_EQ(p.steps.front().transform.cofactor, 5.0);
    for (const auto& step : p.steps) {
        const int c = t.findChannel(step.name);
        ASSERT_GE(c, 0) << step.name;
        EXPECT_TRUE(hasOwnMarker(t.channels[static_cast<size_t>(c)])) << step.name;
    }
}

TEST(DemoData, CarriesTheChannelsOfARealPanelWithTheirRoles) {
    const io::Table t = demo::makeDemoTable(4000, 3);
    const std::vector<std::pair<std::string, ChannelRole>> expected = {
        {"Time", ChannelRole::Time},         {"Event_length", ChannelRole::EventLength},
        {"Pd104Di", ChannelRole::Barcode},   {"Pd105Di", ChannelRole::Barcode},
        {"Pd106Di", ChannelRole::Barcode},   {"Pd108Di", ChannelRole::Barcode},
        {"Pd110Di", ChannelRole::Barcode},   {"Ce140Di", ChannelRole::Beads},
        {"Ir191Di", ChannelRole::Dna},       {"Ir193Di", ChannelRole::Dna},
        {"Pt195Di", ChannelRole::Viability}, {"Center", ChannelRole::Gaussian},
        {"Offset", ChannelRole::Gaussian},   {"Width", ChannelRole::Gaussian},
        {"Residual", ChannelRole::Gaussian}, {"Population", ChannelRole::Code},
        {"Nd142Di", ChannelRole::Marker},    {"Y89Di", ChannelRole::Marker}};
    for (const auto& [name, role] : expected) {
        const int c = t.findChannel(name);
        ASSERT_GE(c, 0) << name;
        EXPECT_EQ(channelRole(t, static_cast<size_t>(c)), role) << name;
    }
    size_t markers = 0;
    for (ChannelRole role : channelRoles(t)) markers += role == ChannelRole::Marker;
    EXPECT_EQ(markers, 22u);
    // DNA follows cell size (Ir193 more abundant than Ir191); a few cells are dead (cisplatin
    // bright); every cell carries the sample's barcode: Pd104, Pd106, Pd108 positive.
    const auto column = [&](const char* name) { return static_cast<size_t>(t.findChannel(name)); };
    double dna1 = 0, dna2 = 0, pd104 = 0, pd105 = 0;
    size_t dead = 0;
    for (size_t i = 0; i < t.events(); ++i) {
        dna1 += t.values.at(i, column("Ir191Di"));
        dna2 += t.values.at(i, column("Ir193Di"));
        pd104 += t.values.at(i, column("Pd104Di"));
        pd105 += t.values.at(i, column("Pd105Di"));
        dead += t.values.at(i, column("Pt195Di")) > 200.0f;
    }
    EXPECT_GT(dna1 / static_cast<double>(t.events()), 300.0);
    EXPECT_NEAR(dna2 / dna1, 1.7, 0.1);
    EXPECT_GT(pd104, 10 * pd105);
    EXPECT_GT(dead, t.events() / 40);
    EXPECT_LT(dead, t.events() / 10);
}

TEST(DemoData, ExtraChannelsLeaveTheMarkersAsTheyWere) {
    // The acquisition channels draw from their own stream: the markers, event lengths and
    // populations of seed 1 are those the demo had before it carried them (values read from the
    // earlier data/demo.fcs), so embeddings of the demo keep their look.
    const io::Table t = demo::makeDemoTable(200, 1);
    EXPECT_EQ(t.channels[2].name, "Y89Di");
    EXPECT_EQ(t.channels.back().name, "Population");
    const auto column = [&](const char* name) { return static_cast<size_t>(t.findChannel(name)); };
    const std::vector<size_t> rows = {0, 1, 2, 199};
    const std::vector<float> cd45 = {41.96f, 391.27f, 58.76f, 168.28f};
    const std::vector<float> cd4 = {2.22f, 1.82f, 2.83f, 0.0f};
    const std::vector<float> length = {27, 18, 26, 20};
    for (size_t r = 0; r < rows.size(); ++r) {
        EXPECT_EQ(t.values.at(rows[r], column("CD45")), cd45[r]) << rows[r];
        EXPECT_EQ(t.values.at(rows[r], column("CD4")), cd4[r]) << rows[r];
        EXPECT_EQ(t.values.at(rows[r], column("Event_length")), length[r]) << rows[r];
    }
}

}  // namespace sepal
