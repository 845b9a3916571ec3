// The export service's sessions: the session file (files, model with gates, colours, populations,
// view, training settings) written atomically and restored all or nothing.
#include <filesystem>
#include <fstream>

#include "app/comparison_service.h"
#include "app/data_service.h"
#include "app/export_service.h"
#include "app/file_io.h"
#include "core/common/error.h"
#include "core/io/atomic_file.h"
#include "core/io/json_format.h"
#include "core/model/model_file.h"
#include "core/train/trainer_names.h"

namespace sepal::app {

namespace {

/// The user's marker classes as the session keeps them: {"CD3": "state", ...}.
nlohmann::json markerClassesJson(const MarkerClassOverrides& classes) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [channel, c] : classes) out[channel] = markerClassKey(c);
    return out;
}

}  // namespace

namespace {
// Population membership as runs "start, length, code" (brushed regions are contiguous in
// neither order nor space, but runs of 0 dominate and compress well).
nlohmann::json runs(const std::vector<uint8_t>& v) {
    std::vector<uint64_t> out;
    for (size_t i = 0; i < v.size();) {
        size_t j = i;
        while (j < v.size() && v[j] == v[i]) ++j;
        if (v[i] != 0) out.insert(out.end(), {i, j - i, v[i]});
        i = j;
    }
    return out;
}
/// A sample's path as the session keeps it: absolute, so that the session opens from any
/// folder (generated data, "synthetic:N", and paths that name no file are kept as they are).
std::string sessionFilePath(const std::string& path) {
    std::error_code ec;
    if (path.starts_with("synthetic:") || !std::filesystem::exists(path, ec)) return path;
    const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    return ec ? path : absolute.lexically_normal().string();
}

/// A data file a session names, found as written (absolute, or from the current folder), else
/// beside the session file (a session moved with its data: by its file name; or written by
/// hand); throws
/// InputError naming the session and where the file was looked for.
std::string sessionDataFile(const std::string& file, const std::string& session) {
    std::error_code ec;
    const std::filesystem::path f(file);
    if (file.starts_with("synthetic:") || std::filesystem::exists(f, ec)) return file;
    // Relative: beside the session; absolute but gone (the session moved with its data): its
    // file name beside the session.
    const std::filesystem::path beside =
        std::filesystem::path(session).parent_path() / (f.is_absolute() ? f.filename() : f);
    if (std::filesystem::exists(beside, ec)) return beside.string();
    throw InputError(session + ": its data file " + file +
                     " is found neither from the current folder (" +
                     std::filesystem::current_path(ec).string() + ") nor beside the session (" +
                     std::filesystem::absolute(beside, ec).lexically_normal().string() +
                     "); move the file back or open it and save the session anew");
}
}  // namespace

nlohmann::json ExportService::sessionJson(const std::array<float, 3>& camera) const {
    const State& state = this->state();
    nlohmann::json files = nlohmann::json::array();
    for (const auto& s : state.data.samples) files.push_back(sessionFilePath(s.path));
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : state.populations.groups)
        groups.push_back({{"name", g.name}, {"colour", g.colour}, {"phenotype", g.phenotype}});
    const auto& c = state.colour;
    const auto& v = state.view;
    const auto& t = state.training;
    const ComparisonSettings& compare = m_comparison.settings();
    nlohmann::json session = {
        {"format", "sepal-session"},
        {"version", 3},
        {"files", files},
        // The model file of `sepal-cli embed --model`: its transform, landmarks, parameters.
        {"model", modelToJson(state.model, state.data.columns, state.pipeline.toJson(), state.embed,
                              {}, state.gating.gates)},
        {"colour",
         {{"mode", int(c.mode)},
          {"column", c.column},
          {"stateColumn", c.stateColumn},
          {"labelColumn", c.labelColumn},
          {"groupColumn", c.groupColumn},
          {"map", c.map},
          {"low", c.lowPercentile},
          {"high", c.highPercentile}}},
        {"populations",
         {{"groups", groups},
          {"runs", runs(state.populations.membership)},
          // Regions whose landmark labels no longer fit (landmarks added or removed since)
          // are not saved: the populations then travel as landmark sets.
          {"regions",
           state.populations.regions.empty() ||
                   state.populations.regions.labelOfLandmark.size() != state.model.count()
               ? nlohmann::json()
               : regionsToJson(state.populations.regions)}}},
        {"metadata",
         {{"source", state.metadata.source},
          {"columns", state.metadata.columns},
          {"files", state.metadata.files},
          {"values", state.metadata.values}}},
        {"view",
         {{"pointSize", v.pointSize},
          {"alpha", v.alpha},
          {"landmarks", v.showLandmarks},
          {"graph", v.showGraph},
          {"smallMultiples", v.smallMultiples},
          {"panelsBy", v.panelsBy},
          {"camera", camera}}},
        {"training",
         {{"recipe", t.recipe},
          {"landmarks", t.landmarks},
          {"gridRows", t.gridRows},
          {"gridCols", t.gridCols},
          {"trainSample", t.trainSample},
          {"balanced", t.balanced},
          {"supervise", t.supervise},
          {"supervisionStrength", t.supervisionStrength},
          {"trainer", t.trainer},
          {"graphK", t.graphK},
          {"seed", t.seed},
          {"sigma", t.sigma},
          {"alpha", t.alpha},
          {"epochs", t.epochs},
          {"markerClasses", markerClassesJson(t.markerClasses)}}}};
    // The Compare window's conditions, when chosen.
    if (!compare.column.empty())
        session["compare"] = {{"column", compare.column},       {"level", compare.level},
                              {"reference", compare.reference}, {"block", compare.block},
                              {"method", compare.method},       {"samples", compare.samples},
                              {"covariate", compare.covariate}};
    return session;
}

void ExportService::saveSession(const std::string& path, const std::array<float, 3>& camera) const {
    std::filesystem::path p(path);
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
    // Core's atomic writer: a temporary name, renamed when complete, removed on SIGINT/SIGTERM.
    io::writeFileAtomically(path, [&](std::ostream& out) { out << sessionJson(camera).dump(1); });
}

bool isSessionFile(const std::string& path) {
    return io::jsonFileFormat(path) == "sepal-session";
}

std::array<float, 3> ExportService::loadSession(const std::string& path) {
    nlohmann::json j;
    {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec))
            throw InputError(path + ": cannot read the session file: " +
                             (std::filesystem::exists(path, ec) ? "it is not a regular file"
                                                                : "no such file; check the path"));
        std::ifstream in(path);
        if (!in) throw InputError(path + ": cannot read the session file (check the permissions)");
        try {
            j = nlohmann::json::parse(in);
        } catch (const nlohmann::json::parse_error& e) {
            throw InputError(path + ": not a session file: it is not valid JSON (at byte " +
                             std::to_string(e.byte) +
                             "); choose a file the app saved as a session");
        } catch (const std::exception& e) {
            throw InputError(path + ": not a session file (" + e.what() + ")");
        }
    }
    if (j.value("format", "") != "sepal-session")
        throw InputError(path + ": not a Sepal session (no \"format\": \"sepal-session\")");
    // Version 3 renamed the refining trainers: version 2's "kmeans" was the online k-means,
    // which is "online-kmeans" now ("kmeans" is Lloyd's, as sepal-cli embed always ran it).
    const int version = j.value("version", 0);
    if (version != 2 && version != 3)
        throw InputError(path + ": a session of format version " + std::to_string(version) +
                         "; this Sepal reads versions 2 and 3 (open the files again and save "
                         "anew)");
    // Everything is read into a new state first; the current one is replaced only on success.
    State next;
    std::array<float, 3> camera{};
    try {
        std::vector<io::Table> tables;
        for (const auto& f : j.at("files"))
            tables.push_back(readAnyTable(sessionDataFile(f.get<std::string>(), path)));
        if (tables.empty()) throw InputError(path + ": the session lists no files");
        next.data.tables = std::move(tables);
        LoadedModel loaded = modelFromJson(j.at("model"), path);
        next.pipeline = TransformPipeline::fromJson(loaded.transform);
        rebuildPoints(next.data, next.pipeline);
        next.model = std::move(loaded.model);
        if (next.model.dim != next.data.points.cols)
            throw InputError(path + ": the model's dimension does not match the data");
        next.embed = loaded.params;
        next.gating = gatingOf(next.data, loaded.gates);
        const auto& c = j.at("colour");
        next.colour.mode =
            ColourMode(std::clamp(c.at("mode").get<int>(), 0, int(ColourMode::Change)));
        next.colour.groupColumn = c.value("groupColumn", 0);
        next.colour.column = c.at("column").get<int>();
        next.colour.stateColumn = c.value("stateColumn", -1);  // sessions before it: none
        next.colour.labelColumn = c.at("labelColumn").get<int>();
        next.colour.map = c.at("map").get<std::string>();
        next.colour.lowPercentile = c.at("low").get<float>();
        next.colour.highPercentile = c.at("high").get<float>();
        for (const auto& g : j.at("populations").at("groups"))
            next.populations.groups.push_back({g.at("name").get<std::string>(),
                                               g.at("colour").get<std::array<uint8_t, 3>>(),
                                               g.value("phenotype", std::string())});
        next.populations.membership.assign(next.data.events(), 0);
        auto r = j.at("populations").at("runs").get<std::vector<uint64_t>>();
        for (size_t i = 0; i + 2 < r.size(); i += 3)
            for (uint64_t k = r[i]; k < r[i] + r[i + 1] && k < next.data.events(); ++k)
                next.populations.membership[k] = uint8_t(r[i + 2]);
        // Sessions saved before regions have none: their populations travel as landmark sets,
        // as do regions that no longer fit (the populations themselves are kept).
        const auto& regions = j.at("populations").value("regions", nlohmann::json());
        if (!regions.is_null()) {
            try {
                next.populations.regions = regionsFromJson(regions, "session " + path);
                validateRegions(next.populations.regions, next.model.count(),
                                next.populations.groups.size(), "session " + path);
            } catch (const InputError& e) {
                next.populations.regions = {};
                log(LogEntry::Warning,
                    std::string(e.what()) + "; the populations travel in models as landmark sets");
            }
        }
        const auto& v = j.at("view");
        next.view = {v.at("pointSize").get<float>(), v.at("alpha").get<float>(),
                     v.at("landmarks").get<bool>(), v.at("graph").get<bool>()};
        camera = v.at("camera").get<std::array<float, 3>>();
        next.view.smallMultiples = v.value("smallMultiples", false);
        next.view.panelsBy = v.value("panelsBy", -1);
        // Sessions saved before sample metadata have none.
        if (j.contains("metadata")) {
            const auto& m = j.at("metadata");
            next.metadata.source = m.at("source").get<std::string>();
            next.metadata.columns = m.at("columns").get<std::vector<std::string>>();
            next.metadata.files = m.at("files").get<std::vector<std::string>>();
            next.metadata.values = m.at("values").get<std::vector<std::vector<std::string>>>();
            bool fits = next.metadata.values.size() == next.metadata.files.size();
            for (const auto& row : next.metadata.values)
                fits = fits && row.size() == next.metadata.columns.size();
            if (!fits)
                throw InputError(path + ": the sample metadata's rows do not fit its columns");
        }
        const auto& t = j.at("training");
        next.training.recipe = t.at("recipe").get<std::string>();
        next.training.gridRows = t.at("gridRows").get<int>();
        next.training.gridCols = t.at("gridCols").get<int>();
        next.training.trainSample = t.at("trainSample").get<int>();
        next.training.balanced = t.value("balanced", false);
        next.training.supervise = t.value("supervise", std::string());
        next.training.supervisionStrength = t.value("supervisionStrength", 3.0f);
        next.training.trainer = t.at("trainer").get<std::string>();
        if (version == 2)
            next.training.trainer = trainer_name::beforeLloydEntry(next.training.trainer);
        next.training.landmarks = t.at("landmarks").get<int>();
        next.training.graphK = t.at("graphK").get<int>();
        next.training.seed = t.at("seed").get<uint64_t>();
        next.training.sigma = t.at("sigma").get<float>();
        next.training.alpha = t.at("alpha").get<float>();
        next.training.epochs = t.at("epochs").get<int>();
        if (t.contains("markerClasses"))
            for (const auto& [channel, word] : t.at("markerClasses").items())
                if (const auto c = markerClassNamed(word.get<std::string>()))
                    next.training.markerClasses[channel] = *c;
    } catch (const nlohmann::json::exception& e) {
        throw InputError(path + ": the session is incomplete or damaged (" + e.what() + ")");
    }
    // The conditions compared, read before anything is replaced (all or nothing).
    ComparisonSettings compare;
    try {
        if (j.contains("compare")) {
            const auto& c = j.at("compare");
            compare = {c.at("column").get<std::string>(),       c.at("level").get<std::string>(),
                       c.at("reference").get<std::string>(),    c.at("block").get<std::string>(),
                       c.value("method", std::string("edgeR")), c.value("samples", std::string()),
                       c.value("covariate", std::string())};
        }
    } catch (const nlohmann::json::exception& e) {
        throw InputError(path + ": the session's compared conditions are damaged (" + e.what() +
                         ")");
    }
    m_scheduler.stopModelWork();
    m_document.replaceAll(std::move(next));
    m_comparison.choose(compare);
    for (const auto& s : m_document.state().data.samples) m_data.addRecent(s.path);
    log(LogEntry::Info, "session restored from " + path);
    return camera;
}

}  // namespace sepal::app
