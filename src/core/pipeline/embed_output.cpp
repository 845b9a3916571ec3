#include "core/pipeline/embed_output.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <regex>

#include "core/common/error.h"
#include "core/io/csv_writer.h"
#include "core/io/fcs_writer.h"
#include "core/transform/channel_label.h"

namespace sepal {

io::Table withEmbedding(const io::Table& table, const Matrix& xy) {
    if (xy.rows != table.events() || xy.cols != 2)
        throw InputError("internal mismatch: " + std::to_string(xy.rows) + " coordinates for " +
                         std::to_string(table.events()) + " events");
    io::Table out;
    out.source = table.source;
    out.channels = table.channels;
    for (const char* name : {kEmbedX, kEmbedY}) {
        // The range lets FCS readers (FlowJo and others) scale the new axes sensibly.
        double hi = 0.0;
        for (size_t i = 0; i < xy.rows; ++i)
            hi = std::max(hi, static_cast<double>(std::abs(xy.at(i, name == kEmbedX ? 0 : 1))));
        out.channels.push_back(io::Channel{name, "EmbedSOM", std::ceil(hi + 1.0), 32});
    }
    const size_t c = table.channels.size();
    out.values = Matrix(table.events(), c + 2);
    for (size_t i = 0; i < table.events(); ++i) {
        std::copy(table.values.row(i), table.values.row(i) + c, out.values.row(i));
        out.values.at(i, c) = xy.at(i, 0);
        out.values.at(i, c + 1) = xy.at(i, 1);
    }
    out.labels = table.labels;
    out.keywords = table.keywords;
    out.spillover = table.spillover;
    return out;
}

namespace {

std::string lowerExtension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return ext;
}

}  // namespace

void checkTableExtension(const std::string& path) {
    const std::string ext = lowerExtension(path);
    if (ext != ".csv" && ext != ".fcs")
        throw InputError(path + ": cannot tell the output format from the extension '" + ext +
                         "': name the file .csv or .fcs");
}

void writeTableByExtension(const std::string& path, const io::Table& table) {
    checkTableExtension(path);
    if (lowerExtension(path) == ".csv") return io::writeCsv(path, table);
    // The FCS writer keeps the first label column with its category names; FCS holds numbers
    // only, so the others travel as parameters of category numbers.
    if (table.labels.size() <= 1) return io::writeFcs(path, table);
    io::Table numeric = table;
    numeric.labels.resize(1);
    const size_t c = table.channels.size(), extra = table.labels.size() - 1;
    numeric.values = Matrix(table.events(), c + extra);
    for (size_t i = 0; i < table.events(); ++i)
        std::copy(table.values.row(i), table.values.row(i) + c, numeric.values.row(i));
    for (size_t l = 1; l < table.labels.size(); ++l) {
        const auto& label = table.labels[l];
        numeric.channels.push_back(
            io::Channel{label.name, "", static_cast<double>(label.categories.size() + 1), 32});
        for (size_t i = 0; i < table.events(); ++i)
            numeric.values.at(i, c + l - 1) = static_cast<float>(label.codes[i] + 1);
    }
    io::writeFcs(path, numeric);
}

namespace {

std::string unknownColorMessage(const io::Table& table, const std::string& color) {
    std::string labels;
    for (const auto& l : table.labels) labels += (labels.empty() ? "" : ", ") + l.name;
    return "--color " + color + ": no such channel, marker or label column" +
           (table.source.empty() ? "" : " in " + table.source) + "; use density, label" +
           (labels.empty() ? "" : ", a label column (" + labels + ")") +
           ", or a channel: " + channelChoices(table);
}

}  // namespace

raster::PictureSpec pictureSpecFor(const io::Table& table, const std::string& color,
                                   const Matrix& transformed,
                                   const std::vector<std::string>& transformedColumns) {
    raster::PictureSpec spec;
    if (color == "density") {
        spec.colorBy = raster::ColorBy::Density;
        spec.title = "density";
        return spec;
    }
    const io::LabelColumn* label = nullptr;
    if (color == "label") {
        for (const auto& l : table.labels)
            if (!label || label->name == "sample") label = &l;
        if (!label)
            throw InputError(
                "--color label: the input has no label column; colour by density or "
                "by a channel instead");
    } else {
        for (const auto& l : table.labels)
            if (l.name == color) label = &l;
    }
    if (label) {
        spec.colorBy = raster::ColorBy::Labels;
        spec.title = label->name;
        spec.codes = label->codes;
        spec.categories = label->categories;
        return spec;
    }
    spec.colorBy = raster::ColorBy::Values;
    spec.title = color;
    // A marker or label finds its channel; the transformed values are preferred (what was
    // embedded).
    const std::vector<size_t> found = channelsNamed(table, color);
    if (found.size() > 1) throwAmbiguousChannel(table, color, found, "--color");
    const std::string name = found.empty() ? color : table.channels[found.front()].name;
    if (!found.empty()) spec.title = channelLabels(table)[found.front()];
    const auto it = std::find(transformedColumns.begin(), transformedColumns.end(), name);
    if (it != transformedColumns.end() && transformed.rows == table.events()) {
        const size_t j = static_cast<size_t>(it - transformedColumns.begin());
        spec.values.resize(transformed.rows);
        for (size_t i = 0; i < transformed.rows; ++i) spec.values[i] = transformed.at(i, j);
        return spec;
    }
    if (found.empty()) throw InputError(unknownColorMessage(table, color));
    const size_t channel = found.front();
    spec.values.resize(table.events());
    for (size_t i = 0; i < table.events(); ++i) spec.values[i] = table.values.at(i, channel);
    return spec;
}

void parseSize(const std::string& text, int& width, int& height) {
    static const std::regex size(R"((\d{1,5})x(\d{1,5}))");
    std::smatch m;
    if (!std::regex_match(text, m, size) || std::stoi(m[1]) < 16 || std::stoi(m[2]) < 16)
        throw InputError("--size " + text +
                         ": give WIDTHxHEIGHT in pixels, each at least 16 "
                         "(for example 1200x900)");
    width = std::stoi(m[1]);
    height = std::stoi(m[2]);
}

}  // namespace sepal
