#include "core/pipeline/embed_output.h"

#include <algorithm>
#include <cmath>
#include <regex>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/transform/channel_label.h"

namespace sepal {

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
        spec.colorBy = raster::ColorBy::Density;  // the picture titles its log scale
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
        // The name in another case ("population" for "Population") where no channel has it,
        // as channels are found.
        if (!label && channelsNamed(table, color).empty())
            for (const auto& l : table.labels)
                if (!label && lowercase(l.name) == lowercase(color)) label = &l;
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
    // The picture is drawn in memory, 4 bytes a pixel: 16384 x 16384 is 1 GiB.
    constexpr int kSmallest = 16, kLargest = 16384;
    static const std::regex size(R"((\d{1,5})x(\d{1,5}))");
    std::smatch m;
    const auto inRange = [](int v) { return v >= kSmallest && v <= kLargest; };
    if (!std::regex_match(text, m, size) || !inRange(std::stoi(m[1])) || !inRange(std::stoi(m[2])))
        throw InputError("--size " + text + ": give WIDTHxHEIGHT in pixels, each from " +
                         std::to_string(kSmallest) + " to " + std::to_string(kLargest) +
                         " (for example 1200x900)");
    width = std::stoi(m[1]);
    height = std::stoi(m[2]);
}

}  // namespace sepal
