#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/common/error.h"
#include "core/io/atomic_file.h"
#include "fresh_dir.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

size_t entries(const fs::path& dir) {
    return static_cast<size_t>(
        std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(AtomicFile, CommitReplacesTheFileAndLeavesNoTemporary) {
    const fs::path dir = test::freshDir("atomic_commit");
    const fs::path target = dir / "out.bin";
    std::ofstream(target) << "old contents";
    {
        io::AtomicFile f(target.string());
        EXPECT_EQ(fs::path(f.temporaryPath()).parent_path(), dir);
        f.write("new ");
        f.write(std::string(100000, 'x'));
        EXPECT_EQ(slurp(target), "old contents");  // untouched until commit
        f.commit();
    }
    EXPECT_EQ(slurp(target), "new " + std::string(100000, 'x'));
    EXPECT_EQ(entries(dir), 1u);
    fs::remove_all(dir);
}

TEST(AtomicFile, WritebackBetweenBlocksKeepsEveryByteInPlace) {
    // A streamed file: room kept for a header, blocks each followed by startWriteback (the disk
    // starts on them), the header written over its room, then commit: the bytes are the same as
    // without the writeback, and the temporary is still the one renamed.
    const fs::path dir = test::freshDir("atomic_writeback");
    const fs::path target = dir / "out.bin";
    std::string want(10, ' ');
    {
        io::AtomicFile file(target.string());
        file.write(std::string(10, ' '));
        file.startWriteback();
        for (int b = 0; b < 5; ++b) {
            const std::string block(70000 + b, char('a' + b));
            file.write(block);
            want += block;
            file.startWriteback();
            file.startWriteback();  // nothing new: no harm
        }
        file.writeAt(0, "HEADER-ABC");
        want.replace(0, 10, "HEADER-ABC");
        file.write("tail");
        want += "tail";
        file.commit();
    }
    EXPECT_EQ(slurp(target), want);
    EXPECT_EQ(entries(dir), 1u);
}

TEST(AtomicFile, AnExceptionLeavesTheOldFileAndNoTemporary) {
    const fs::path dir = test::freshDir("atomic_fail");
    const fs::path target = dir / "out.csv";
    std::ofstream(target) << "keep me";
    EXPECT_THROW(io::writeFileAtomically(target.string(),
                                         [](std::ostream& out) {
                                             out << "half written";
                                             throw InputError("stop");
                                         }),
                 InputError);
    EXPECT_EQ(slurp(target), "keep me");
    EXPECT_EQ(entries(dir), 1u);
    io::writeFileAtomically(target.string(), [](std::ostream& out) { out << "a,b\n1,2\n"; });
    EXPECT_EQ(slurp(target), "a,b\n1,2\n");
    EXPECT_EQ(entries(dir), 1u);
    fs::remove_all(dir);
}

TEST(AtomicFile, MakesMissingFoldersAndNamesOneItCannotMake) {
    const fs::path dir =
        fs::temp_directory_path() / ("sepal_atomic_folders_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const fs::path nested = dir / "a" / "b" / "out.csv";
    io::AtomicFile made(nested.string());
    made.write("x\n");
    made.commit();
    EXPECT_EQ(slurp(nested), "x\n");
    // A folder where a file is cannot be made.
    const std::string path = (dir / "a" / "b" / "out.csv" / "inside.csv").string();
    try {
        io::AtomicFile f(path);
        ADD_FAILURE() << "opened a file under a file";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace sepal
