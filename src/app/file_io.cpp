#include "app/file_io.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "app/synthetic.h"
#include "core/common/error.h"

#if __has_include("core/io/read_any.h")
#include "core/io/read_any.h"
#define SEPAL_APP_HAVE_READ_ANY 1
#endif
#if __has_include("core/io/fcs_reader.h")
#include "core/io/fcs_reader.h"
#define SEPAL_APP_HAVE_FCS_READER 1
#endif
#if __has_include("core/io/csv_reader.h")
#include "core/io/csv_reader.h"
#define SEPAL_APP_HAVE_CSV_READER 1
#endif
#if __has_include("core/io/csv_writer.h")
#include "core/io/csv_writer.h"
#define SEPAL_APP_HAVE_CSV_WRITER 1
#endif
#if __has_include("core/io/fcs_writer.h")
#include "core/io/fcs_writer.h"
#define SEPAL_APP_HAVE_FCS_WRITER 1
#endif

namespace sepal::app {

io::Table readAnyTable(const std::string& path) {
    if (path.starts_with("synthetic:")) {
        size_t n = 0;
        try {
            n = std::stoul(path.substr(10));
        } catch (...) {
            throw InputError(path + ": write synthetic:N with N the number of events");
        }
        return makeSyntheticTable(n);
    }
    if (!std::filesystem::exists(path)) throw InputError(path + ": no such file; check the path");
#ifdef SEPAL_APP_HAVE_READ_ANY
    return io::readTable(path);
#else
    std::string ext = std::filesystem::path(path).extension().string();
    for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
#ifdef SEPAL_APP_HAVE_FCS_READER
    if (ext == ".fcs") return io::readFcs(path);
#endif
#ifdef SEPAL_APP_HAVE_CSV_READER
    if (ext == ".csv" || ext == ".tsv" || ext == ".txt") return io::readCsv(path);
#endif
    throw InputError(path + ": this build cannot read '" + ext + "' files yet");
#endif
}

void writeCsvTable(const std::string& path, const io::Table& table) {
#ifdef SEPAL_APP_HAVE_CSV_WRITER
    io::writeCsv(path, table);
#else
    // Plain CSV until the core writer is part of the build: header, then one row per event.
    std::string tmp = path + ".tmp-" + std::to_string(std::random_device{}() % 1000000);
    {
        std::ofstream out(tmp);
        if (!out) throw InputError(path + ": cannot write here; choose another folder");
        for (size_t c = 0; c < table.channels.size(); ++c)
            out << (c ? "," : "") << table.channels[c].name;
        for (const auto& l : table.labels) out << "," << l.name;
        out << "\n";
        char buf[32];
        for (size_t i = 0; i < table.events(); ++i) {
            for (size_t c = 0; c < table.values.cols; ++c) {
                std::snprintf(buf, sizeof buf, "%.7g", double(table.values.at(i, c)));
                out << (c ? "," : "") << buf;
            }
            for (const auto& l : table.labels)
                out << "," << (l.codes[i] >= 0 ? l.categories[size_t(l.codes[i])] : "");
            out << "\n";
        }
        if (!out) throw InputError(path + ": write failed (disk full?)");
    }
    std::filesystem::rename(tmp, path);
#endif
}

void writeFcsTable(const std::string& path, const io::Table& table) {
#ifdef SEPAL_APP_HAVE_FCS_WRITER
    io::writeFcs(path, table);
#else
    throw InputError(path + ": this build has no FCS writer yet; export CSV instead");
#endif
}

}  // namespace sepal::app
