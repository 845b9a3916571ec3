#include "core/io/regular_file.h"

#include <filesystem>

#include "core/common/error.h"

namespace sepal::io {

namespace {

const char* kindOf(std::filesystem::file_type type) {
    using T = std::filesystem::file_type;
    switch (type) {
        case T::directory:
            return "a directory";
        case T::fifo:
            return "a FIFO (named pipe), which would wait for a writer for ever";
        case T::socket:
            return "a socket";
        case T::character:
            return "a character device";
        case T::block:
            return "a block device";
        default:
            return "something other than a file";
    }
}

}  // namespace

void requireRegularFile(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || status.type() == std::filesystem::file_type::not_found ||
        status.type() == std::filesystem::file_type::regular)
        return;
    throw InputError(path + ": is " + kindOf(status.type()) +
                     ", not a file Sepal can read; give a regular file (save piped data to a "
                     "file first)");
}

}  // namespace sepal::io
