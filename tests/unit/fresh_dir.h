#pragma once
// An empty folder of its own for a test that writes files, removed when the test program ends.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace sepal::test {

/// The folders freshDir made, removed at the program's exit so that runs leave no litter.
struct MadeFolders {
    std::vector<std::filesystem::path> paths;  ///< every folder made, in order
    ~MadeFolders() {
        std::error_code ec;
        for (const auto& p : paths) std::filesystem::remove_all(p, ec);
    }
};

/// An empty folder under the system's temporary folder, named after `name` and this process.
inline std::filesystem::path freshDir(const std::string& name) {
    static MadeFolders made;
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("sepal_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    made.paths.push_back(dir);
    return dir;
}

}  // namespace sepal::test
