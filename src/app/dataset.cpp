#include "app/dataset.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/common/error.h"
#include "core/pipeline/prepare.h"
#include "core/pipeline/samples.h"
#include "core/transform/channel_label.h"

namespace sepal::app {

namespace {
// The sample column sepal-cli adds when it reads several files.
constexpr const char* kSampleColumn = "sample";
}  // namespace

std::vector<std::string> Dataset::sampleNames() const {
    std::vector<std::string> paths;
    for (const Sample& s : samples) paths.push_back(s.path);
    return sepal::sampleNames(paths);
}

std::vector<std::string> Dataset::channelNames() const {
    if (tables.empty()) return {};
    return channelLabels(tables.front());
}

NamingInput Dataset::namingInput(const MarkerClassOverrides& overrides) const {
    if (tables.empty())
        return NamingInput{columns, std::vector<MarkerClass>(columns.size(), MarkerClass::Type)};
    return namingInputFor(tables.front(), columns, overridesOf(tables.front(), overrides));
}

std::vector<std::string> Dataset::markerNames() const {
    return tables.empty() ? columns : sepal::markerNames(tables.front(), columns);
}

std::vector<std::pair<std::string, std::string>> Dataset::labelsOf(size_t event) const {
    std::vector<std::pair<std::string, std::string>> out;
    if (event >= sampleOf.size() || sampleOf[event] >= tables.size()) return out;
    const size_t s = sampleOf[event];
    const size_t row = event - samples[s].first;
    for (const auto& lc : tables[s].labels) {
        const int code = row < lc.codes.size() ? lc.codes[row] : -1;
        if (code >= 0 && size_t(code) < lc.categories.size())
            out.emplace_back(lc.name, lc.categories[size_t(code)]);
    }
    return out;
}

io::Table Dataset::combined() const {
    if (tables.size() == 1) return tables.front();
    return concatenateSamples(tables, kSampleColumn);
}

TransformPipeline defaultPipeline(const Dataset& data) {
    if (data.tables.size() == 1) return choosePipeline(data.tables.front(), PrepareOptions{});
    return choosePipeline(data.combined(), PrepareOptions{});
}

void rebuildPoints(Dataset& data, TransformPipeline& pipeline) {
    data.points = Matrix();
    data.columns.clear();
    data.labels.clear();
    data.sampleOf.clear();
    data.samples.resize(data.tables.size());
    if (data.tables.empty()) {
        ++data.version;
        return;
    }
    // One file is used as it is; several are concatenated exactly as sepal-cli does it, so the
    // fitted statistics and every value agree with `sepal-cli embed` on the same files.
    Matrix points = data.tables.size() == 1 ? fitAndApply(pipeline, data.tables.front())
                                            : fitAndApply(pipeline, data.combined());
    // Legends name a sample by its file; files of one name in different folders by their folder
    // too ("a/s1.fcs", "b/s1.fcs"), which read alike otherwise.
    std::map<std::string, int> named;
    for (const auto& t : data.tables) ++named[std::filesystem::path(t.source).filename().string()];
    size_t row = 0;
    for (size_t s = 0; s < data.tables.size(); ++s) {
        const auto& t = data.tables[s];
        const std::filesystem::path path(t.source);
        data.samples[s].path = t.source;
        data.samples[s].name = named[path.filename().string()] > 1
                                   ? (path.parent_path().filename() / path.filename()).string()
                                   : path.filename().string();
        data.samples[s].first = row;
        data.samples[s].count = t.events();
        row += t.events();
    }
    if (row != points.rows)
        throw InputError("the samples hold " + std::to_string(row) + " events but " +
                         std::to_string(points.rows) + " were transformed");
    data.sampleOf.resize(row);
    for (size_t s = 0; s < data.samples.size(); ++s)
        std::fill_n(data.sampleOf.begin() + long(data.samples[s].first), data.samples[s].count,
                    uint16_t(std::min<size_t>(s, 65535)));
    data.incompleteEvents = 0;
    for (size_t i = 0; i < points.rows; ++i) {
        const float* r = points.row(i);
        data.incompleteEvents +=
            !std::all_of(r, r + points.cols, [](float v) { return std::isfinite(v); });
    }
    data.columns = pipeline.columns();
    const auto& first = data.tables.front();
    const auto labels = channelLabels(first);
    for (const auto& name : data.columns) {
        const int c = first.findChannel(name);
        data.labels.push_back(c >= 0 ? labels[size_t(c)] : name);
    }
    data.points = std::move(points);
    ++data.version;
}

}  // namespace sepal::app
