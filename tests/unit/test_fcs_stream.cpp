// FcsEventStream: every readable real FCS file (integer, float, double and ASCII data sets from
// other projects' test suites), decoded in blocks of odd sizes, gives readFcs's events exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/common/error.h"
#include "core/io/fcs_reader.h"
#include "core/io/fcs_stream.h"
#include "test_paths.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;

TEST(FcsEventStream, BlocksOfEveryRealFileAreTheWholeRead) {
    const fs::path dir = test::sharedDataDir() / "fcs";
    if (!fs::exists(dir)) GTEST_SKIP() << test::sharedDataMissing(dir);
    size_t files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (entry.path().extension() != ".fcs") continue;
        const std::string path = entry.path().string();
        io::Table whole;
        try {
            whole = io::readFcs(path);
        } catch (const InputError&) {
            continue;  // damaged on purpose: the stream refuses it too
        }
        io::FcsEventStream stream(path);
        ASSERT_EQ(stream.events(), whole.events()) << path;
        ASSERT_EQ(stream.layout().channels.size(), whole.channels.size()) << path;
        ASSERT_EQ(stream.layout().keywords, whole.keywords) << path;
        const size_t block = std::max<size_t>(1, whole.events() / 3 + 7);
        size_t at = 0;
        while (at < whole.events()) {
            const io::Table part = stream.read(at, block);
            ASSERT_GT(part.events(), 0u) << path;
            for (size_t r = 0; r < part.events(); ++r)
                for (size_t c = 0; c < part.values.cols; ++c) {
                    const float a = part.values.at(r, c), b = whole.values.at(at + r, c);
                    ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b)))
                        << path << " event " << at + r << " column " << c;
                }
            at += part.events();
        }
        ++files;
    }
    EXPECT_GT(files, 20u) << "too few readable FCS files under " << dir;
}

}  // namespace
}  // namespace sepal
