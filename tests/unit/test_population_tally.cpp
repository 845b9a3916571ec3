// PopulationTally: counts and medians per population over samples, the same whatever the order
// the samples come in or how tallies of parts of the cohort are merged (as MPI ranks do).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include "core/cluster/population_tally.h"
#include "core/common/error.h"
#include "fresh_dir.h"

namespace sepal {
namespace {

struct Sample {
    std::string name;
    std::vector<int32_t> codes;
    Matrix values;
};

/// A sample of `n` cells: of every ten, five in population 0, four in 1 and one in none; marker 0
/// is centred on the population's code, marker 1 on 10 + code.
Sample makeSample(const std::string& name, size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> noise(0.f, 1.f);
    Sample s{name, std::vector<int32_t>(n), Matrix(n, 2)};
    for (size_t i = 0; i < n; ++i) {
        s.codes[i] = i % 10 == 9 ? -1 : int32_t(i % 2);
        s.values.row(i)[0] = float(s.codes[i]) + noise(rng);
        s.values.row(i)[1] = 10.f + float(s.codes[i]) + noise(rng);
    }
    return s;
}

std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

PopulationTally emptyTally() {
    return PopulationTally({"A", "B"}, {"m0", "m1"}, 7);
}

TEST(PopulationTally, CountsAddUpPerSample) {
    const auto dir = test::freshDir("tally_counts");
    PopulationTally tally = emptyTally();
    const Sample s = makeSample("s1", 100, 1);
    tally.add(0, s.name, s.codes, s.values);
    tally.writeCounts((dir / "p.csv").string());
    // 100 cells: 50 in A, 40 in B, 10 in none.
    EXPECT_EQ(readText(dir / "p.csv"),
              "sample,population,cells,fraction\n"
              "s1,A,50,0.5\n"
              "s1,B,40,0.4\n"
              "s1,unassigned,10,0.1\n");
}

TEST(PopulationTally, MergedPartsAndAnyOrderGiveTheSameFiles) {
    // Above the keep limit, so the medians come from the sampled cells.
    const size_t n = PopulationTally::kKeptPerPopulation + 60000;
    const std::vector<Sample> samples = {makeSample("s1", n, 1), makeSample("s2", n, 2),
                                         makeSample("s3", 5000, 3)};
    const auto dir = test::freshDir("tally_merge");
    const auto write = [&](const PopulationTally& t, const std::string& name) {
        t.writeCounts((dir / (name + "_counts.csv")).string());
        t.writeMedians((dir / (name + "_medians.csv")).string());
    };
    PopulationTally inOrder = emptyTally();
    for (size_t i = 0; i < samples.size(); ++i)
        inOrder.add(i, samples[i].name, samples[i].codes, samples[i].values);
    write(inOrder, "order");

    // Two "ranks": files 0 and 2 on one, file 1 on the other, merged into the first.
    PopulationTally rank0 = emptyTally(), rank1 = emptyTally();
    rank0.add(2, samples[2].name, samples[2].codes, samples[2].values);
    rank0.add(0, samples[0].name, samples[0].codes, samples[0].values);
    rank1.add(1, samples[1].name, samples[1].codes, samples[1].values);
    rank0.merge(rank1.toBytes());
    write(rank0, "merged");
    // Each sample's medians travel with it; finished or not, they are the same.
    inOrder.writeSampleMedians((dir / "order_samples.csv").string());
    rank0.writeSampleMedians((dir / "merged_samples.csv").string());
    EXPECT_EQ(readText(dir / "order_samples.csv"), readText(dir / "merged_samples.csv"));
    for (size_t i = 0; i < samples.size(); ++i) inOrder.finishSample(i);
    inOrder.writeSampleMedians((dir / "finished_samples.csv").string());
    EXPECT_EQ(readText(dir / "order_samples.csv"), readText(dir / "finished_samples.csv"));

    EXPECT_EQ(readText(dir / "order_counts.csv"), readText(dir / "merged_counts.csv"));
    EXPECT_EQ(readText(dir / "order_medians.csv"), readText(dir / "merged_medians.csv"));
    const Heatmap a = inOrder.heatmap(), b = rank0.heatmap();
    EXPECT_EQ(a.medians, b.medians);
    EXPECT_EQ(a.cells, b.cells);

    // The sampled medians are close to the populations' centres (0 and 1, 10 and 11).
    std::istringstream medians(readText(dir / "order_medians.csv"));
    std::string header, rowA, rowB;
    std::getline(medians, header);
    std::getline(medians, rowA);
    std::getline(medians, rowB);
    EXPECT_EQ(header, "population,cells,m0,m1");
    float m0 = 0, m1 = 0;
    ASSERT_EQ(std::sscanf(rowA.c_str(), "A,%*d,%f,%f", &m0, &m1), 2) << rowA;
    EXPECT_NEAR(m0, 0.f, 0.02f);
    EXPECT_NEAR(m1, 10.f, 0.02f);
    ASSERT_EQ(std::sscanf(rowB.c_str(), "B,%*d,%f,%f", &m0, &m1), 2) << rowB;
    EXPECT_NEAR(m0, 1.f, 0.02f);
    EXPECT_NEAR(m1, 11.f, 0.02f);
    EXPECT_EQ(a.cells[0], n + 2500);
    EXPECT_EQ(a.cells[1], 2 * n * 4 / 10 + 2000);
}

TEST(PopulationTally, EachSampleHasItsOwnExactMedians) {
    // Two samples whose populations sit at different levels, the first added in two blocks.
    const auto dir = test::freshDir("tally_sample_medians");
    PopulationTally tally = emptyTally();
    Sample a = makeSample("a", 1001, 1), b = makeSample("b", 400, 2);
    for (size_t i = 0; i < b.codes.size(); ++i) b.values.row(i)[0] += 5.f;
    const size_t half = 500;
    Sample first{"a", {a.codes.begin(), a.codes.begin() + half}, Matrix(half, 2)};
    Sample second{"a", {a.codes.begin() + half, a.codes.end()}, Matrix(a.codes.size() - half, 2)};
    std::copy_n(a.values.values.begin(), half * 2, first.values.values.begin());
    std::copy(a.values.values.begin() + half * 2, a.values.values.end(),
              second.values.values.begin());
    tally.add(0, "a", first.codes, first.values);
    tally.add(1, "b", b.codes, b.values);
    tally.add(0, "a", second.codes, second.values, half);
    tally.finishSample(0);
    EXPECT_THROW(tally.add(0, "a", first.codes, first.values), InputError);
    // The exact medians of each sample's cells of each population.
    const auto exact = [](const Sample& s, int32_t code, size_t marker) {
        std::vector<float> v;
        for (size_t i = 0; i < s.codes.size(); ++i)
            if (s.codes[i] == code) v.push_back(s.values.row(i)[marker]);
        std::sort(v.begin(), v.end());
        const size_t n = v.size();
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    };
    const std::vector<SampleMedians> rows = tally.sampleMedians();
    ASSERT_EQ(rows.size(), 4u);
    const Sample* of[] = {&a, &a, &b, &b};
    for (size_t r = 0; r < rows.size(); ++r) {
        EXPECT_EQ(rows[r].sample, of[r]->name);
        EXPECT_EQ(rows[r].population, r % 2 ? "B" : "A");
        for (size_t m = 0; m < 2; ++m)
            EXPECT_FLOAT_EQ(rows[r].medians[m], exact(*of[r], int32_t(r % 2), m)) << r << m;
    }
    EXPECT_EQ(rows[0].cells, 501u);  // of 1001 cells, every even one but those ending in 9
    EXPECT_GT(rows[2].medians[0], 4.f);
    tally.writeSampleMedians((dir / "s.csv").string());
    EXPECT_EQ(readText(dir / "s.csv").substr(0, 28), "sample,population,cells,m0,m");
}

TEST(PopulationTally, RanksSendingOnlyRowsWithinTheCohortsBoundsMergeToTheSameFiles) {
    // Three "ranks" of one sample each; populations A and B keep more than the limit in all.
    const size_t n = PopulationTally::kKeptPerPopulation + 60000;
    const std::vector<Sample> samples = {makeSample("s1", n, 1), makeSample("s2", n, 2),
                                         makeSample("s3", 5000, 3)};
    const auto dir = test::freshDir("tally_bounds");
    PopulationTally whole = emptyTally();
    std::vector<PopulationTally> ranks(3, emptyTally());
    for (size_t i = 0; i < samples.size(); ++i) {
        whole.add(i, samples[i].name, samples[i].codes, samples[i].values);
        ranks[i].add(i, samples[i].name, samples[i].codes, samples[i].values);
    }
    // The sum over the ranks, as Ranks::sumEach gives it to each of them.
    std::vector<std::vector<std::vector<uint64_t>>> keys;
    for (const PopulationTally& r : ranks) keys.push_back(r.keptKeys());
    int calls = 0;
    const std::vector<uint64_t> bounds = cohortKeyBounds(2, [&](const std::vector<uint64_t>& at) {
        ++calls;
        std::vector<uint64_t> total(at.size(), 0);
        for (const auto& k : keys) {
            const std::vector<uint64_t> mine = keysAtMost(k, at);
            for (size_t p = 0; p < at.size(); ++p) total[p] += mine[p];
        }
        return total;
    });
    EXPECT_EQ(calls, 64);
    // The bound is the whole cohort's largest kept key.
    const std::vector<std::vector<uint64_t>> wholeKeys = whole.keptKeys();
    ASSERT_EQ(bounds.size(), 2u);
    for (size_t p = 0; p < 2; ++p) {
        ASSERT_EQ(wholeKeys[p].size(), PopulationTally::kKeptPerPopulation);
        EXPECT_EQ(bounds[p], wholeKeys[p].back()) << p;
    }
    // Ranks 1 and 2 send only their rows within the bounds: far fewer bytes, the same files.
    const std::string all1 = ranks[1].toBytes(), within1 = ranks[1].toBytes(bounds);
    EXPECT_LT(within1.size(), all1.size() * 3 / 4);
    ranks[0].merge(within1);
    ranks[0].merge(ranks[2].toBytes(bounds));
    whole.writeMedians((dir / "whole.csv").string());
    ranks[0].writeMedians((dir / "merged.csv").string());
    EXPECT_EQ(readText(dir / "whole.csv"), readText(dir / "merged.csv"));
    whole.writeCounts((dir / "whole_counts.csv").string());
    ranks[0].writeCounts((dir / "merged_counts.csv").string());
    EXPECT_EQ(readText(dir / "whole_counts.csv"), readText(dir / "merged_counts.csv"));

    // Fewer kept keys than the limit in all: no bound (every row is sent).
    PopulationTally small = emptyTally();
    small.add(0, samples[2].name, samples[2].codes, samples[2].values);
    const std::vector<std::vector<uint64_t>> smallKeys = small.keptKeys();
    const std::vector<uint64_t> open = cohortKeyBounds(
        2, [&](const std::vector<uint64_t>& at) { return keysAtMost(smallKeys, at); });
    EXPECT_EQ(open, std::vector<uint64_t>(2, UINT64_MAX));
}

TEST(PopulationTally, BlocksOfAnySizeKeepTheSameCells) {
    // Three times the keep limit in each population, added whole or in blocks of odd sizes: the
    // kept rows are trimmed at other moments, and they are the same smallest keys.
    const size_t n = 6 * PopulationTally::kKeptPerPopulation + 7;
    Sample s = makeSample("s1", n, 5);
    for (size_t i = 0; i < n; ++i) s.codes[i] = int32_t(i % 2);
    PopulationTally whole = emptyTally(), blocks = emptyTally();
    whole.add(0, s.name, s.codes, s.values);
    for (size_t first = 0, size = 1; first < n; first += size, size = size * 3 + 1) {
        const size_t count = std::min(size, n - first);
        Matrix part(count, 2);
        std::copy_n(s.values.row(first), 2 * count, part.row(0));
        const std::vector<int32_t> codes(s.codes.begin() + long(first),
                                         s.codes.begin() + long(first + count));
        blocks.add(0, s.name, codes, part, first);
    }
    const Heatmap a = whole.heatmap(), b = blocks.heatmap();
    EXPECT_EQ(a.medians, b.medians);
    EXPECT_EQ(a.cells, b.cells);
    const auto dir = test::freshDir("tally_blocks");
    whole.writeMedians((dir / "whole.csv").string());
    blocks.writeMedians((dir / "blocks.csv").string());
    EXPECT_EQ(readText(dir / "whole.csv"), readText(dir / "blocks.csv"));
    // Merging a tally into an empty one keeps the same rows too.
    PopulationTally merged = emptyTally();
    merged.merge(blocks.toBytes());
    EXPECT_EQ(merged.heatmap().medians, a.medians);
}

TEST(PopulationTally, MarkersRenamedNameTheMediansColumns) {
    // apply names the columns after its first file, whichever lane counted first.
    PopulationTally tally = emptyTally();
    const Sample s = makeSample("s1", 100, 1);
    tally.add(0, s.name, s.codes, s.values);
    EXPECT_THROW(tally.renameMarkers({"only one"}), InputError);
    tally.renameMarkers({"CD3", "CD4"});
    const auto dir = test::freshDir("tally_names");
    tally.writeMedians((dir / "m.csv").string());
    EXPECT_EQ(readText(dir / "m.csv").substr(0, 24), "population,cells,CD3,CD4");
}

TEST(PopulationTally, RefusesBytesOfAnotherTally) {
    PopulationTally tally = emptyTally();
    PopulationTally other({"A", "B", "C"}, {"m0", "m1"}, 7);
    EXPECT_THROW(tally.merge(other.toBytes()), InputError);
    const std::string bytes = emptyTally().toBytes();
    EXPECT_THROW(tally.merge(bytes.substr(0, bytes.size() - 3)), InputError);
}

}  // namespace
}  // namespace sepal
