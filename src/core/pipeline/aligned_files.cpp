#include "core/pipeline/aligned_files.h"

#include <algorithm>
#include <filesystem>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/csv_writer.h"
#include "core/io/fcs_writer.h"
#include "core/pipeline/samples.h"

namespace sepal {

namespace {

size_t metadataColumn(const SampleMetadata& metadata, const std::string& name,
                      const std::string& what) {
    for (size_t c = 0; c < metadata.columns.size(); ++c)
        if (metadata.columns[c] == name) return c;
    std::string list;
    for (const auto& c : metadata.columns) list += (list.empty() ? "" : ", ") + c;
    throw InputError(what + ": " + metadata.source + " has no column \"" + name +
                     "\" (its columns: " + list + ")");
}

}  // namespace

BatchAssignment assignBatches(const SampleMetadata& metadata, const std::vector<std::string>& paths,
                              const std::string& batchColumn, const std::string& anchors,
                              bool anchorsInEveryBatch) {
    BatchAssignment out;
    const size_t batch = metadataColumn(metadata, batchColumn, "the batch column");
    for (const auto& path : paths) {
        if (metadata.rowOf(path) < 0)
            throw InputError(path + " is not listed in " + metadata.source +
                             ": every sample needs its batch");
        const std::string value = metadata.valueOf(path, batch);
        if (trimmed(value, " \t").empty())
            throw InputError(path + " has no " + batchColumn + " in " + metadata.source);
        out.batchOf.push_back(value);
    }
    if (anchors.empty()) {
        out.anchor.assign(paths.size(), true);
    } else {
        const size_t equals = anchors.find('=');
        if (equals == std::string::npos || equals == 0)
            throw InputError("the anchors \"" + anchors +
                             "\": give COLUMN=VALUE, such as type=control");
        const size_t column =
            metadataColumn(metadata, anchors.substr(0, equals), "the anchors' column");
        const std::string value = anchors.substr(equals + 1);
        for (const auto& path : paths)
            out.anchor.push_back(metadata.valueOf(path, column) == value);
    }
    if (anchorsInEveryBatch)
        for (const auto& b : out.batchOf) {
            bool anchored = false;
            for (size_t i = 0; i < paths.size(); ++i)
                anchored = anchored || (out.batchOf[i] == b && out.anchor[i]);
            if (!anchored)
                throw InputError("batch \"" + b + "\" has no anchor sample (" + anchors +
                                 "): the alignment learns each batch from its anchors");
        }
    return out;
}

std::vector<std::string> alignedPaths(const std::vector<std::string>& paths,
                                      const std::string& folder) {
    const std::vector<std::string> names = sampleNames(paths);
    std::vector<std::string> out;
    for (size_t i = 0; i < paths.size(); ++i) {
        // FCS stays FCS; every other table is written as CSV (a TSV's or points JSON's too).
        std::string extension = std::filesystem::path(paths[i]).extension().string();
        const std::string lower = lowerExtension(paths[i]);
        if (lower != ".fcs" && lower != ".csv") extension = ".csv";
        out.push_back((std::filesystem::path(folder) / (names[i] + extension)).string());
    }
    return out;
}

void writeAlignedTable(const std::string& path, const io::Table& table) {
    if (lowerExtension(path) == ".fcs")
        io::writeFcs(path, table);
    else
        io::writeCsv(path, table);
}

}  // namespace sepal
