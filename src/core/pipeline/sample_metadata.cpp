#include "core/pipeline/sample_metadata.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/delimited_fields.h"
#include "core/io/regular_file.h"
#include "core/pipeline/samples.h"

namespace sepal {

int SampleMetadata::rowOf(const std::string& path) const {
    const std::string fileName = std::filesystem::path(path).filename().string();
    const std::string name = sampleName(path);
    for (size_t r = 0; r < files.size(); ++r)
        if (files[r] == path || files[r] == fileName || files[r] == name) return int(r);
    // A sample named without its extension (populations.csv's sample column) finds its file.
    for (size_t r = 0; r < files.size(); ++r)
        if (sampleName(files[r]) == name) return int(r);
    return -1;
}

std::string SampleMetadata::valueOf(const std::string& path, size_t column) const {
    const int r = rowOf(path);
    return r < 0 || column >= columns.size() ? std::string() : values[size_t(r)][column];
}

std::vector<std::string> SampleMetadata::valuesOver(const std::vector<std::string>& paths,
                                                    size_t column) const {
    std::vector<std::string> out;
    for (const auto& p : paths) {
        const std::string v = valueOf(p, column);
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    return out;
}

size_t SampleMetadata::columnIndex(const std::string& name, const std::string& what) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it != columns.end()) return size_t(it - columns.begin());
    throw InputError(what + ": " + source + " has no column \"" + name +
                     "\" (its columns: " + commaJoined(columns) + ")");
}

std::string SampleMetadata::batchColumn() const {
    for (const auto& c : columns)
        if (lowercase(c) == "batch") return c;
    return "";
}

SampleMetadata readSampleMetadata(const std::string& path) {
    io::requireRegularFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open the sample metadata; check the path");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (lines.empty() && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a BOM
        if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
    }
    if (lines.empty()) throw InputError(path + ": the sample metadata is empty");
    // Commas, else tabs or semicolons: whichever the header uses.
    char delimiter = ',';
    for (char d : {',', '\t', ';'})
        if (lines.front().find(d) != std::string::npos) {
            delimiter = d;
            break;
        }
    SampleMetadata m;
    m.source = path;
    const std::vector<std::string> header = io::delimitedFields(lines.front(), delimiter);
    if (header.size() < 2 || header.front().empty())
        throw InputError(path + ": the first row must name the columns, the first naming the " +
                         "files (file,condition,patient,...)");
    m.columns.assign(header.begin() + 1, header.end());
    if (lines.size() < 2) throw InputError(path + ": no samples are listed");
    for (size_t r = 1; r < lines.size(); ++r) {
        std::vector<std::string> row = io::delimitedFields(lines[r], delimiter);
        const std::string where = path + " line " + std::to_string(r + 1);
        if (row.size() != header.size())
            throw InputError(where + " has " + std::to_string(row.size()) + " fields, the " +
                             "header " + std::to_string(header.size()));
        if (row.front().empty()) throw InputError(where + " names no file");
        if (std::find(m.files.begin(), m.files.end(), row.front()) != m.files.end())
            throw InputError(path + ": " + row.front() + " is listed twice");
        m.files.push_back(row.front());
        m.values.emplace_back(row.begin() + 1, row.end());
    }
    return m;
}

}  // namespace sepal
