// Bad input reported in the user's terms: model sizes beyond the integers they are read into,
// a FIFO or a directory given as a data file, duplicate column names, too many threads.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <thread>

#include "core/common/error.h"
#include "core/common/threads.h"
#include "core/io/fcs_reader.h"
#include "core/io/read_any.h"
#include "core/model/model_file.h"
#include "core/pipeline/prepare.h"

namespace sepal {
namespace {

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

nlohmann::json goodModel() {
    LandmarkModel m;
    m.resize(4, 2);
    m.high = {0, 0, 1, 0, 0, 1, 1, 1};
    m.low = {0, 0, 1, 0, 0, 1, 1, 1};
    return modelToJson(m, {"a", "b"}, nullptr, EmbedParams{4, 0.0f, 1.0f});
}

TEST(BadInputMessages, ModelSizesAreNeverWrappedAround) {
    auto k = goodModel();
    k["embedsom"]["k"] = 4294967297ull;  // 2^32 + 1: was read as k = 1
    std::string what = errorOf([&] { modelFromJson(k, "m.json"); });
    EXPECT_NE(what.find("\"k\" (EmbedSOM neighbours) is 4294967297, more than 2147483647"),
              std::string::npos)
        << what;
    k["embedsom"]["k"] = 2147483648ull;  // 2^31: was read as a negative k
    what = errorOf([&] { modelFromJson(k, "m.json"); });
    EXPECT_NE(what.find("is 2147483648, more than 2147483647"), std::string::npos) << what;
    auto g = goodModel();
    g["g"] = 9223372036854775808ull;  // 2^63: g * d wrapped to 0
    what = errorOf([&] { modelFromJson(g, "m.json"); });
    EXPECT_NE(what.find("\"g\" (the number of landmarks) is 9223372036854775808, more than"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find("expected 0"), std::string::npos) << what;
    auto d = goodModel();
    d["d"] = 18446744073709551615ull;
    what = errorOf([&] { modelFromJson(d, "m.json"); });
    EXPECT_NE(what.find("\"d\" (the number of columns) is 18446744073709551615"), std::string::npos)
        << what;
    EXPECT_EQ(modelFromJson(goodModel(), "m.json").params.k, 4);
}

class SpecialFiles : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = std::filesystem::temp_directory_path() /
                ("sepal_special_" + std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir / "folder.fcs");
        ASSERT_EQ(::mkfifo((m_dir / "pipe.fcs").c_str(), 0600), 0);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    std::string path(const char* name) const { return (m_dir / name).string(); }
    std::filesystem::path m_dir;
};

TEST_F(SpecialFiles, EveryReaderRefusesAFifoAtOnce) {
    // Opening a FIFO for reading waits for a writer: without the check these would block.
    const std::string pipe = path("pipe.fcs");
    for (const auto& read : std::vector<std::function<void()>>{
             [&] { io::readTable(pipe); },
             [&] { io::readFcs(pipe); },
             [&] { io::inspectFcs(pipe); },
             [&] { readInput(pipe); },
             [&] { loadModel(pipe); },
         }) {
        const std::string what = errorOf(read);
        EXPECT_NE(what.find(pipe + ": is a FIFO (named pipe)"), std::string::npos) << what;
    }
    EXPECT_FALSE(isModelFile(pipe));
}

TEST_F(SpecialFiles, ADirectoryIsNamedAsOne) {
    const std::string folder = path("folder.fcs");
    EXPECT_NE(errorOf([&] { io::readTable(folder); }).find(folder + ": is a directory"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { io::inspectFcs(folder); }).find(folder + ": is a directory"),
              std::string::npos);
}

TEST(BadInputMessages, DuplicateColumnNamesAreNamedNotBlamedOnAPipeline) {
    io::Table t;
    t.source = "dup.csv";
    t.channels = {{"CD3", "", 0, 32}, {"CD4", "", 0, 32}, {"CD3", "", 0, 32}};
    t.values = Matrix(5, 3, 1.0f);
    const std::string what = errorOf([&] { choosePipeline(t, PrepareOptions{}); });
    EXPECT_NE(what.find("dup.csv: the column name 'CD3' is used by columns 1 and 3"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find("pipeline"), std::string::npos) << what;
    PrepareOptions other;
    other.columns = {"CD4"};
    EXPECT_EQ(choosePipeline(t, other).columns(), (std::vector<std::string>{"CD4"}));
}

TEST(BadInputMessages, ThreadCountsBeyondTheLimitAreRefused) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    EXPECT_EQ(maxThreadCount(), std::min(1024, 4 * cores));
    EXPECT_NO_THROW(checkThreadCount(0, "--threads"));
    EXPECT_NO_THROW(checkThreadCount(maxThreadCount(), "--threads"));
    for (int bad : {-1, maxThreadCount() + 1, 50000, 100000}) {
        const std::string what = errorOf([&] { checkThreadCount(bad, "--threads"); });
        EXPECT_NE(what.find("--threads " + std::to_string(bad) + ": give 0 (one per core) up to " +
                            std::to_string(maxThreadCount())),
                  std::string::npos)
            << what;
    }
}

}  // namespace
}  // namespace sepal
