#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/io/atomic_file.h"
#include "core/io/temporary_files.h"
#include "fresh_dir.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;

size_t temporariesIn(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp-") != std::string::npos) ++n;
    return n;
}

TEST(TemporaryFiles, TheNameCarriesTheWritersProcessIdAndHost) {
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    const std::string pattern = io::temporaryPattern("/d/out.fcs");
    const std::string start = "/d/out.fcs.tmp-" + std::to_string(::getpid()) + "@";
    EXPECT_EQ(pattern.substr(0, start.size()), start);
    EXPECT_EQ(pattern.substr(pattern.size() - 7), "-XXXXXX");
    EXPECT_NE(pattern.find(std::string(host).substr(0, 4)), std::string::npos) << pattern;
}

TEST(TemporaryFiles, EachIsNewInThePatternAndASignalRightAfterItsCreationRemovesIt) {
    const fs::path dir = test::freshDir("tmpfiles_create");
    const std::string path = (dir / "out.csv").string();
    const std::string pattern = io::temporaryPattern(path);
    const std::string stem = pattern.substr(0, pattern.size() - 6);
    std::string first, second;
    int slotA = -1, slotB = -1;
    const int a = io::createTemporary(path, first, slotA);
    const int b = io::createTemporary(path, second, slotB);
    ASSERT_GE(a, 0);
    ASSERT_GE(b, 0);
    EXPECT_NE(first, second);
    for (const std::string& name : {first, second}) {
        EXPECT_EQ(name.substr(0, stem.size()), stem);
        EXPECT_EQ(name.size(), pattern.size());
        EXPECT_EQ(fs::status(name).permissions() & fs::perms::all,
                  fs::perms::owner_read | fs::perms::owner_write);
    }
    ::close(a), ::close(b);
    io::forgetTemporary(slotA), io::forgetTemporary(slotB);
    fs::remove(first), fs::remove(second);
    // A signal the moment the file exists: the handler was in place before it was created.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::string name;
        int slot = -1;
        if (io::createTemporary(path, name, slot) < 0) ::_exit(3);
        std::raise(SIGTERM);
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(temporariesIn(dir), 0u);
    fs::remove_all(dir);
}

TEST(TemporaryFiles, StaleOnesAreRemovedOnTheNextWriteIntoTheFolder) {
    const fs::path dir = test::freshDir("tmpfiles_stale");
    const std::string mine = std::to_string(::getpid());
    std::ofstream(dir / "a.csv.tmp-999999999-AbC123") << "dead writer";  // no such process
    std::ofstream(dir / ("b.csv.tmp-" + mine + "-xyz789")) << "a live writer (this test)";
    std::ofstream(dir / "c.fcs.tmp-q1w2e3") << "old naming, two hours old";
    fs::last_write_time(dir / "c.fcs.tmp-q1w2e3",
                        fs::file_time_type::clock::now() - std::chrono::hours(2));
    std::ofstream(dir / "d.fcs.tmp-r4t5y6") << "old naming, just written";
    std::ofstream(dir / "notes.tmp-1") << "not Sepal's";
    // Another machine's writer (MPI ranks sharing a folder): its process id means nothing here;
    // stale only once it stopped changing for an hour.
    std::ofstream(dir / "e.csv.tmp-999999999@elsewhere-Zx9y8w") << "a rank on another node";
    std::ofstream(dir / "f.csv.tmp-999999999@elsewhere-Qa1s2d") << "another node, two hours old";
    fs::last_write_time(dir / "f.csv.tmp-999999999@elsewhere-Qa1s2d",
                        fs::file_time_type::clock::now() - std::chrono::hours(2));
    {
        io::AtomicFile f((dir / "new.csv").string());
        f.write("x\n");
        f.commit();
    }
    EXPECT_FALSE(fs::exists(dir / "a.csv.tmp-999999999-AbC123"));
    EXPECT_TRUE(fs::exists(dir / ("b.csv.tmp-" + mine + "-xyz789")));
    EXPECT_FALSE(fs::exists(dir / "c.fcs.tmp-q1w2e3"));
    EXPECT_TRUE(fs::exists(dir / "d.fcs.tmp-r4t5y6"));
    EXPECT_TRUE(fs::exists(dir / "notes.tmp-1"));
    EXPECT_TRUE(fs::exists(dir / "e.csv.tmp-999999999@elsewhere-Zx9y8w"));
    EXPECT_FALSE(fs::exists(dir / "f.csv.tmp-999999999@elsewhere-Qa1s2d"));
    EXPECT_TRUE(fs::exists(dir / "new.csv"));
    fs::remove_all(dir);
}

TEST(TemporaryFiles, SigtermRemovesOpenTemporariesAndStillEndsTheProcess) {
    const fs::path dir = test::freshDir("tmpfiles_signal");
    for (int signal : {SIGTERM, SIGINT}) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            io::AtomicFile first((dir / "one.fcs").string());
            io::AtomicFile second((dir / "two.csv").string());
            first.write("half of a file");
            std::raise(signal);
            ::_exit(0);  // not reached: the signal ends the process
        }
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFSIGNALED(status)) << "the child exited normally";
        EXPECT_EQ(WTERMSIG(status), signal);
        EXPECT_EQ(temporariesIn(dir), 0u);
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace sepal
