#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/pipeline/samples.h"
#include "fresh_dir.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;

TEST(InputGuard, OneFileThroughSpellingsSymlinksAndHardLinks) {
    const fs::path dir = test::freshDir("guard_same");
    const fs::path in = dir / "in.csv";
    std::ofstream(in) << "a,b\n1,2\n";
    fs::create_symlink(in, dir / "link.csv");
    fs::create_hard_link(in, dir / "hard.csv");
    std::ofstream(dir / "other.csv") << "a,b\n1,2\n";
    EXPECT_TRUE(io::sameFile(in.string(), (dir / "." / "in.csv").string()));
    EXPECT_TRUE(io::sameFile(in.string(), (dir / "link.csv").string()));
    EXPECT_TRUE(io::sameFile(in.string(), (dir / "hard.csv").string()));
    EXPECT_FALSE(io::sameFile(in.string(), (dir / "other.csv").string()));
    EXPECT_FALSE(io::sameFile(in.string(), (dir / "missing.csv").string()));
    EXPECT_FALSE(io::sameFile(in.string(), ""));
    fs::remove_all(dir);
}

// A file among the inputs twice (another spelling, a symlink) would count its cells twice.
TEST(InputGuard, RefusesAFileGivenTwiceAndNamesBothPlaces) {
    const fs::path dir = test::freshDir("guard_twice");
    std::ofstream(dir / "s1.csv") << "a,b\n1,2\n";
    std::ofstream(dir / "s2.csv") << "a,b\n1,2\n";
    fs::create_symlink(dir / "s1.csv", dir / "link.csv");
    io::refuseRepeatedInputs({(dir / "s1.csv").string(), (dir / "s2.csv").string()});
    for (const fs::path& again : {dir / "." / "s1.csv", dir / "link.csv"}) {
        try {
            io::refuseRepeatedInputs(
                {(dir / "s1.csv").string(), (dir / "s2.csv").string(), again.string()});
            FAIL() << again << " was taken as another file";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("given twice (inputs 1 and 3)"), std::string::npos)
                << e.what();
        }
    }
}

// Files of one name in different folders are two samples with two names, never the name another
// file has of itself.
TEST(SampleNames, RepeatedFileNamesAreNumberedPastTheOtherFilesOwnNames) {
    EXPECT_EQ(sampleNames({"a/s1.fcs", "b/s2.fcs"}), (std::vector<std::string>{"s1", "s2"}));
    EXPECT_EQ(sampleNames({"a/s1.fcs", "b/s1.fcs", "c/s1_2.fcs", "d/s1.csv"}),
              (std::vector<std::string>{"s1", "s1_3", "s1_2", "s1_4"}));
}

TEST(InputGuard, RefusesAnOutputThatIsAnInputAndNamesBoth) {
    const fs::path dir = test::freshDir("guard_refuse");
    const fs::path in = dir / "in.fcs";
    std::ofstream(in) << "FCS3.1";
    fs::create_symlink(in, dir / "alias.fcs");
    try {
        io::refuseOverwritingInput((dir / "alias.fcs").string(), {"", in.string()}, "--out");
        FAIL() << "an output that is the input was accepted";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("--out"), std::string::npos) << what;
        EXPECT_NE(what.find("in.fcs"), std::string::npos) << what;
        EXPECT_NE(what.find("choose another"), std::string::npos) << what;
    }
    EXPECT_NO_THROW(io::refuseOverwritingInput((dir / "new.fcs").string(), {in.string()}, "--out"));
    EXPECT_NO_THROW(io::refuseOverwritingInput("", {in.string()}, "--png"));
    fs::remove_all(dir);
}

// A CSV table writes its spillover matrix beside it ("NAME.spillover.csv"), or removes an
// earlier one: that file must not be an input either.
TEST(InputGuard, RefusesACsvWhoseMatrixBesideItIsAnInput) {
    const fs::path dir = test::freshDir("guard_beside");
    std::ofstream(dir / "out.spillover.csv") << ",A\nA,1\n";
    const std::string matrix = (dir / "out.spillover.csv").string();
    try {
        io::refuseOverwritingInput((dir / "out.csv").string(), {matrix}, "--out");
        FAIL() << "the matrix given as an input would have been replaced";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("would replace the spillover matrix"),
                  std::string::npos)
            << e.what();
    }
    io::refuseOverwritingInput((dir / "out.fcs").string(), {matrix}, "--out");
    io::refuseOverwritingInput((dir / "other.csv").string(), {matrix}, "--out");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace sepal
