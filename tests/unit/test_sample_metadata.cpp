// Sample metadata CSVs: a row per file, matched to samples by path, file name or sample name;
// numeric attributes kept as written; clear errors for what cannot be read.
#include <gtest/gtest.h>

#include <fstream>

#include "core/common/error.h"
#include "core/pipeline/sample_metadata.h"
#include "fresh_dir.h"

namespace sepal {
namespace {

std::string write(const std::filesystem::path& dir, const std::string& name,
                  const std::string& text) {
    const auto path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
}

TEST(SampleMetadata, MatchesSamplesByPathFileOrName) {
    const auto dir = test::freshDir("metadata");
    const auto path = write(dir, "m.csv",
                            "file,condition,patient\n"
                            "/data/a.fcs,healthy,1\n"
                            "b.fcs,disease,2\n"
                            "c,\"disease, late\",3\n"
                            "d.fcs,healthy,1234567\n"
                            "e.fcs,healthy,007\n");
    const SampleMetadata m = readSampleMetadata(path);
    EXPECT_EQ(m.columns, (std::vector<std::string>{"condition", "patient"}));
    EXPECT_EQ(m.rowOf("/data/a.fcs"), 0);
    EXPECT_EQ(m.rowOf("/elsewhere/b.fcs"), 1);
    EXPECT_EQ(m.rowOf("/x/c.fcs"), 2);
    EXPECT_EQ(m.rowOf("/x/z.fcs"), -1);
    EXPECT_EQ(m.valueOf("/x/c.fcs", 0), "disease, late");
    EXPECT_EQ(m.valueOf("/x/c.fcs", 1), "3");  // a number, kept as written
    EXPECT_EQ(m.valueOf("/x/z.fcs", 0), "");
    EXPECT_EQ(m.valuesOver({"/data/a.fcs", "b.fcs", "/x/z.fcs", "c.fcs"}, 0),
              (std::vector<std::string>{"healthy", "disease", "", "disease, late"}));
    // Values stay as written: no number is rounded or loses its leading zeros.
    EXPECT_EQ(m.valueOf("d.fcs", 1), "1234567");
    EXPECT_EQ(m.valueOf("e.fcs", 1), "007");
}

TEST(SampleMetadata, RefusesWhatItCannotUse) {
    const auto dir = test::freshDir("metadata_bad");
    const auto message = [&](const std::string& text) {
        try {
            readSampleMetadata(write(dir, "bad.csv", text));
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message("file,condition\na.fcs,x\na.fcs,y\n").find("listed twice"),
              std::string::npos);
    EXPECT_NE(message("file,condition\n").find("bad.csv"), std::string::npos);
    EXPECT_NE(message("file,condition\na.fcs\n").find("line 2"), std::string::npos);
    EXPECT_NE(message("file\n").find("name the columns"), std::string::npos);
}

}  // namespace
}  // namespace sepal
