#include "core/pipeline/sample_metadata.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/common/error.h"
#include "core/io/csv_reader.h"
#include "core/pipeline/samples.h"

namespace sepal {

int SampleMetadata::rowOf(const std::string& path) const {
    const std::string fileName = std::filesystem::path(path).filename().string();
    const std::string name = sampleName(path);
    for (size_t r = 0; r < files.size(); ++r)
        if (files[r] == path || files[r] == fileName || files[r] == name) return int(r);
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

SampleMetadata readSampleMetadata(const std::string& path) {
    io::CsvReadOptions options;
    options.header = io::CsvHeader::Present;
    const io::Table t = io::readCsv(path, options);
    SampleMetadata m;
    m.source = path;
    // The file column is text; numeric attributes (a patient number) are read as numbers and
    // kept as the text they were.
    const io::LabelColumn* fileColumn = t.labels.empty() ? nullptr : &t.labels.front();
    if (!fileColumn)
        throw InputError(path + ": the first column must name the files (file,condition,...)");
    const size_t n = t.events();
    if (n == 0) throw InputError(path + ": no samples are listed");
    for (size_t l = 1; l < t.labels.size(); ++l) m.columns.push_back(t.labels[l].name);
    for (const auto& ch : t.channels) m.columns.push_back(ch.name);
    for (size_t r = 0; r < n; ++r) {
        const int32_t code = fileColumn->codes[r];
        if (code < 0) throw InputError(path + ": row " + std::to_string(r + 1) + " names no file");
        const std::string file = fileColumn->categories[size_t(code)];
        if (std::find(m.files.begin(), m.files.end(), file) != m.files.end())
            throw InputError(path + ": " + file + " is listed twice");
        m.files.push_back(file);
        std::vector<std::string> row;
        for (size_t l = 1; l < t.labels.size(); ++l) {
            const int32_t c = t.labels[l].codes[r];
            row.push_back(c < 0 ? "" : t.labels[l].categories[size_t(c)]);
        }
        for (size_t c = 0; c < t.channels.size(); ++c) {
            const float v = t.values.at(r, c);
            char text[32] = "";
            if (std::isfinite(v)) std::snprintf(text, sizeof text, "%g", double(v));
            row.push_back(text);
        }
        m.values.push_back(std::move(row));
    }
    return m;
}

}  // namespace sepal
