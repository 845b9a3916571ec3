// FlowJo's biex transform against FlowJo's own numbers: ../shared/data/fcs/flowkit/tr_biex_*.csv
// holds the data value FlowJo puts at each of 4096 channels for one parameter set (written with
// six significant digits). Sepal's biex must give the same values, to the printed digits.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/gate/gate_scale.h"
#include "test_paths.h"

namespace sepal {
namespace {

TEST(FlowJoBiex, MatchesFlowJosChannelTable) {
    const auto path = test::sharedDataDir() / "fcs" / "flowkit" /
                      "tr_biex_l256_w-7.943282_n1.000000_m4.418540_r262144.000029.csv";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << test::sharedDataMissing(path);
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);  // i,lookup[i]
    std::vector<double> table;
    while (std::getline(in, line)) table.push_back(std::stod(line.substr(line.find(',') + 1)));
    ASSERT_EQ(table.size(), 4096u);

    GateScale s;
    s.kind = GateScale::Kind::Biex;
    s.length = 4096;
    s.width = -7.943282;
    s.neg = 1.0;
    s.pos = 4.418540;
    s.maxRange = 262144.000029;
    const ScaleFunction biex(s);
    size_t worst = 0;
    double worstError = 0;
    for (size_t i = 0; i < table.size(); ++i) {
        const double ours = biex.inverse(double(i) / 4097.0);
        const double flowjo = table[i];
        // The table's last printed digit: half of it, plus 1e-6 relative.
        const double digit =
            flowjo == 0 ? 1e-6 : std::pow(10.0, std::floor(std::log10(std::abs(flowjo))) - 5);
        const double error = std::abs(ours - flowjo) / (0.5 * digit + 1e-6 * std::abs(flowjo));
        if (error > worstError) {
            worstError = error;
            worst = i;
        }
        // The forward scale finds the channel again.
        EXPECT_NEAR(biex(ours), double(i) / 4097.0, 1e-12) << "channel " << i;
    }
    EXPECT_LE(worstError, 1.0) << "channel " << worst << ": Sepal "
                               << biex.inverse(double(worst) / 4097.0) << ", FlowJo "
                               << table[worst];
    EXPECT_EQ(biex.inverse(1096.0 / 4097.0), 0.0) << "data zero sits at FlowJo's zero channel";
}

}  // namespace
}  // namespace sepal
