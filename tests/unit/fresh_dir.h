#pragma once
// An empty folder of its own for a test that writes files.

#include <unistd.h>

#include <filesystem>
#include <string>

namespace sepal::test {

/// An empty folder under the system's temporary folder, named after `name` and this process.
inline std::filesystem::path freshDir(const std::string& name) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("sepal_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace sepal::test
