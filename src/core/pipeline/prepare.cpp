#include "core/pipeline/prepare.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <unordered_map>

#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/io/read_any.h"
#include "core/io/regular_file.h"
#include "core/io/spillover_file.h"
#include "core/model/model_panel.h"
#include "core/pipeline/samples.h"
#include "core/transform/channel_label.h"
#include "core/transform/channel_roles.h"
#include "core/transform/empty_channels.h"

namespace sepal {
namespace {

// Cytometry files carry FCS keywords (the generated demo only $CYT until it is written). A table
// is cytometry too when its headers name markers on channels (Sepal's CSV export writes
// "CD45 (In115Di)"), when most of its channels are metal isotopes, or when it has scatter:
// then time, barcodes, DNA and an earlier embedding's coordinates are left out as in the FCS
// file. Other tables (point clouds, measurements) are used as they are.
bool looksLikeCytometry(const io::Table& table) {
    if (table.keyword("$PAR") != nullptr || table.keyword("$TOT") != nullptr ||
        table.keyword("$CYT") != nullptr)
        return true;
    size_t marked = 0, isotopes = 0, scatter = 0;
    const std::vector<ChannelRole> roles = channelRoles(table);
    for (size_t c = 0; c < table.channels.size(); ++c) {
        marked += hasOwnMarker(table.channels[c]) ? 1 : 0;
        isotopes += isMassChannelName(table.channels[c].name) ? 1 : 0;
        scatter += roles[c] == ChannelRole::Scatter ? 1 : 0;
    }
    return marked >= 2 || 2 * isotopes > table.channels.size() || scatter >= 2;
}

ColumnTransform parseTransform(const std::string& text) {
    // A signed number matches, so that a negative cofactor gets its own message.
    static const std::regex asinh(R"((?:a|arc)sinh:([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?))");
    std::smatch m;
    ColumnTransform t;
    if (text == "none") return t;
    if (std::regex_match(text, m, asinh)) {
        t.kind = ColumnTransform::Kind::Arcsinh;
        t.cofactor = std::stod(m[1]);
        if (!(t.cofactor > 0))
            throw InputError("--transform " + text + ": the cofactor must be positive");
        return t;
    }
    if (text == "logicle") {
        t.kind = ColumnTransform::Kind::Logicle;
        return t;
    }
    throw InputError("--transform " + text +
                     ": use default, none, asinh:COFACTOR (5 for mass cytometry, 150 for "
                     "fluorescence), logicle, or a transform pipeline .json file");
}

// Columns are chosen by name: two columns of one name cannot both be embedded, and the
// pipeline's own complaint would speak of a pipeline the user never wrote.
void refuseDuplicateNames(const io::Table& table, const TransformPipeline& pipeline) {
    // Columns by name, counted once (a wide table has tens of thousands of columns).
    std::unordered_map<std::string, std::vector<size_t>> byName;
    for (size_t c = 0; c < table.channels.size(); ++c) byName[table.channels[c].name].push_back(c);
    for (const auto& step : pipeline.steps) {
        const auto it = byName.find(step.name);
        if (it == byName.end() || it->second.size() < 2) continue;
        std::string columns;
        for (size_t c : it->second)
            columns += (columns.empty() ? "" : " and ") + std::to_string(c + 1);
        throw InputError(table.source + ": the column name '" + step.name +
                         "' is used by columns " + columns +
                         "; give each column its own name, or embed other columns "
                         "(--columns)");
    }
}

// A panel split by the marker classes embeds its type markers (what a cell is), as landmarks,
// layout and metaclusters are meant to separate lineages; state markers would split them by what
// the cells are doing. A panel with fewer than two type markers keeps every marker.
void keepTypeMarkers(const io::Table& table, const MarkerClassOverrides& overrides,
                     TransformPipeline& pipeline) {
    const std::vector<MarkerClass> classes = markerClasses(table, overrides);
    std::vector<ColumnStep> kept;
    for (const auto& step : pipeline.steps) {
        const int c = table.findChannel(step.name);
        if (c >= 0 && classes[size_t(c)] == MarkerClass::Type) kept.push_back(step);
    }
    if (kept.size() >= 2) pipeline.steps = std::move(kept);
}

bool isPipelineFile(const std::string& transform) {
    return transform.size() > 5 && transform.substr(transform.size() - 5) == ".json";
}

nlohmann::json readJsonFile(const std::string& path) {
    io::requireRegularFile(path);
    std::ifstream in(path);
    if (!in) throw InputError("--transform " + path + ": cannot open the pipeline file");
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw InputError("--transform " + path + ": not valid JSON (" + e.what() + ")");
    }
}

}  // namespace

io::Table readInput(const std::string& path) {
    if (!std::filesystem::exists(path)) throw InputError(path + ": no such file; check the path");
    return io::readTable(path);
}

TransformPipeline choosePipeline(const io::Table& table, const PrepareOptions& options) {
    TransformPipeline pipeline;
    const std::string& tf = options.transform;
    const bool fromFile = isPipelineFile(tf);
    if (fromFile) {
        const nlohmann::json doc = readJsonFile(tf);
        // A model file holds its pipeline under "transform"; a pipeline file is the pipeline.
        pipeline = TransformPipeline::fromJson(doc.contains("transform") ? doc["transform"] : doc);
    } else if (looksLikeCytometry(table)) {
        pipeline = TransformPipeline::defaultFor(table);
        if (options.columns.empty() && !options.allMarkers)
            keepTypeMarkers(table, options.markerClasses, pipeline);
    } else {
        std::vector<bool> empty(table.channels.size(), false);
        for (size_t c : emptyChannels(table)) empty[c] = true;
        for (size_t c = 0; c < table.channels.size(); ++c)
            if (!empty[c]) pipeline.steps.push_back(ColumnStep{table.channels[c].name});
    }
    if (!options.columns.empty()) {
        std::vector<ColumnStep> chosen;
        for (const auto& name : options.columns) {
            const size_t c = resolveChannel(table, name, "--columns");
            const std::string& channel = table.channels[c].name;
            ColumnStep step{channel};
            // Keep the preset's transform for that channel; a new column borrows the first one's.
            bool found = false;
            for (const auto& s : pipeline.steps)
                if (s.name == channel) step = s, found = true;
            if (!found && !pipeline.steps.empty())
                step.transform = pipeline.steps.front().transform;
            chosen.push_back(step);
        }
        pipeline.steps = std::move(chosen);
    }
    if (!fromFile && tf != "default") {
        const ColumnTransform t = parseTransform(tf);
        for (auto& s : pipeline.steps) s.transform = t;
    }
    if (pipeline.steps.empty()) {
        // Columns are left out when they hold no finite value: say so when that is all of them.
        const bool anyFinite = std::any_of(table.values.values.begin(), table.values.values.end(),
                                           [](float v) { return std::isfinite(v); });
        if (!anyFinite && table.events() > 0)
            throw InputError(table.source + ": every value of its " +
                             std::to_string(table.events()) +
                             " events is missing (NaN, NA or infinite): there is nothing to embed");
        throw InputError(table.source + ": no columns to embed; choose them with --columns");
    }
    refuseDuplicateNames(table, pipeline);
    pipeline.validate();
    return pipeline;
}

TransformPipeline chooseStatePipeline(const io::Table& table, const TransformPipeline& embedded,
                                      const MarkerClassOverrides& overrides) {
    TransformPipeline state;
    state.compensation = embedded.compensation;
    if (embedded.steps.empty()) return state;
    const std::vector<MarkerClass> classes = markerClasses(table, overrides);
    std::vector<bool> used(table.channels.size(), false);
    for (const auto& step : embedded.steps)
        if (const int c = table.findChannel(step.name); c >= 0) used[size_t(c)] = true;
    const std::vector<ChannelRole> roles = channelRoles(table);
    for (size_t c = 0; c < table.channels.size(); ++c) {
        if (used[c] || roles[c] != ChannelRole::Marker || classes[c] != MarkerClass::State)
            continue;
        ColumnStep step{table.channels[c].name};
        // The embedded markers' transform: the same scale for a marker whichever class it has.
        step.transform = embedded.steps.front().transform;
        state.steps.push_back(step);
    }
    return state;
}

Matrix withStateColumns(const Matrix& points, const Matrix& statePoints) {
    if (statePoints.cols == 0) return points;
    if (statePoints.rows != points.rows)
        throw InputError("the state columns have " + std::to_string(statePoints.rows) +
                         " events, the embedded ones " + std::to_string(points.rows));
    Matrix out(points.rows, points.cols + statePoints.cols);
    for (size_t i = 0; i < points.rows; ++i) {
        std::copy_n(points.row(i), points.cols, out.row(i));
        std::copy_n(statePoints.row(i), statePoints.cols, out.row(i) + points.cols);
    }
    return out;
}

void useSpilloverFile(TransformPipeline& pipeline, const std::string& path) {
    pipeline.compensation.source = CompensationStep::Source::Stored;
    pipeline.compensation.spillover = io::readSpilloverFile(path);
}

io::Table combineSamples(std::vector<io::Table> tables, const std::string& sampleColumn) {
    if (tables.empty()) throw InputError("no input files: give at least one");
    if (tables.size() == 1) return std::move(tables.front());
    return concatenateSamples(tables, sampleColumn);
}

Matrix fitAndApply(TransformPipeline& pipeline, const io::Table& table) {
    pipeline.fit(table);
    return pipeline.apply(table);
}

PreparedInput prepareInputs(const std::vector<std::string>& paths, const PrepareOptions& options) {
    if (paths.empty()) throw InputError("no input files: give at least one");
    io::refuseRepeatedInputs(paths);
    PreparedInput out;
    std::vector<io::Table> tables;
    for (const auto& p : paths) tables.push_back(readInput(p));
    if (!options.acceptOtherMarkers) checkSamplesPanel(tables, "--accept-other-markers");
    out.table = combineSamples(std::move(tables), options.sampleColumn);
    out.pipeline = choosePipeline(out.table, options);
    if (!options.spilloverFile.empty()) useSpilloverFile(out.pipeline, options.spilloverFile);
    out.points = fitAndApply(out.pipeline, out.table);
    // A model given as the transform brings the state markers it was made with.
    const nlohmann::json doc =
        isPipelineFile(options.transform) ? readJsonFile(options.transform) : nlohmann::json();
    if (doc.is_object() && doc.contains("state_transform"))
        out.statePipeline = TransformPipeline::fromJson(doc["state_transform"]);
    else if (!isPipelineFile(options.transform))
        out.statePipeline = chooseStatePipeline(out.table, out.pipeline, options.markerClasses);
    out.statePipeline.compensation = out.pipeline.compensation;
    if (!out.statePipeline.steps.empty())
        out.statePoints = fitAndApply(out.statePipeline, out.table);
    return out;
}

}  // namespace sepal
