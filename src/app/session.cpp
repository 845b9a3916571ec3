// Exports and sessions of the Workspace: CSV, FCS, model JSON, and the session file.
#include <filesystem>
#include <fstream>
#include <random>

#include "app/file_io.h"
#include "app/workspace.h"
#include "core/common/error.h"
#include "core/model/model_file.h"

namespace sepal::app {

namespace {
void writeTextAtomically(const std::string& path, const std::string& text) {
    std::string tmp = path + ".tmp-" + std::to_string(std::random_device{}() % 1000000);
    {
        std::ofstream out(tmp);
        if (!out) throw InputError(path + ": cannot write here; choose another folder");
        out << text;
        if (!out) throw InputError(path + ": write failed (disk full?)");
    }
    std::filesystem::rename(tmp, path);
}

nlohmann::json modelJson(const LandmarkModel& m) {
    return {
        {"dim", m.dim}, {"high", m.high}, {"low", m.low}, {"locked", m.locked}, {"edges", m.edges}};
}

LandmarkModel modelFromSession(const nlohmann::json& j) {
    LandmarkModel m;
    m.dim = j.at("dim").get<size_t>();
    m.high = j.at("high").get<std::vector<float>>();
    m.low = j.at("low").get<std::vector<float>>();
    m.locked = j.at("locked").get<std::vector<uint8_t>>();
    m.edges = j.at("edges").get<std::vector<std::pair<uint32_t, uint32_t>>>();
    m.validate();
    return m;
}

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
}  // namespace

io::Table exportTable(const State& s, const std::vector<float>& xy, bool transformed) {
    io::Table t;
    const auto& data = s.data;
    size_t n = data.events();
    if (transformed) {
        for (const auto& c : data.columns) t.channels.push_back({c, "", 0, 32});
    } else if (!data.tables.empty()) {
        t.channels = data.tables.front().channels;
        t.keywords = data.tables.front().keywords;
    }
    size_t base = t.channels.size();
    t.channels.push_back({"embed_x", "EmbedSOM x", 0, 32});
    t.channels.push_back({"embed_y", "EmbedSOM y", 0, 32});
    if (!transformed) t.channels.push_back({"population", "population code", 0, 32});
    t.values = Matrix(n, t.channels.size());
    for (size_t i = 0; i < n; ++i) {
        float* row = t.values.row(i);
        if (transformed) {
            std::copy(data.points.row(i), data.points.row(i) + data.points.cols, row);
        } else {
            size_t sample = data.sampleOf[i];
            const auto& tab = data.tables[sample];
            size_t e = i - data.samples[sample].first;
            for (size_t c = 0; c < base; ++c) {
                int src = tab.findChannel(t.channels[c].name);
                row[c] = src >= 0 ? tab.values.at(e, size_t(src)) : 0.0f;
            }
        }
        row[base] = xy.size() >= 2 * n ? xy[2 * i] : 0.0f;
        row[base + 1] = xy.size() >= 2 * n ? xy[2 * i + 1] : 0.0f;
        if (!transformed)
            row[base + 2] = s.populations.membership.empty() ? 0 : s.populations.membership[i];
    }
    io::LabelColumn pop{"population", {""}, std::vector<int32_t>(n, 0)};
    for (const auto& g : s.populations.groups) pop.categories.push_back(g.name);
    for (size_t i = 0; i < n && i < s.populations.membership.size(); ++i)
        pop.codes[i] = s.populations.membership[i];
    io::LabelColumn sample{"sample", {}, std::vector<int32_t>(n, 0)};
    for (const auto& sm : data.samples) sample.categories.push_back(sm.name);
    for (size_t i = 0; i < n; ++i) sample.codes[i] = data.sampleOf[i];
    if (transformed) t.labels = {std::move(sample), std::move(pop)};
    return t;
}

void Workspace::exportCsv(const std::string& path) const {
    if (m_state.data.events() == 0) throw InputError("nothing to export: open a file first");
    writeCsvTable(path, exportTable(m_state, positions(), true));
}

void Workspace::exportFcs(const std::string& path) const {
    if (m_state.data.events() == 0) throw InputError("nothing to export: open a file first");
    writeFcsTable(path, exportTable(m_state, positions(), false));
}

void Workspace::exportModel(const std::string& path) const {
    nlohmann::json transform = sessionJson({0, 0, 1}).at("data");
    saveModel(path, m_state.model, m_state.data.columns, transform, m_state.embed);
}

nlohmann::json Workspace::sessionJson(const std::array<float, 3>& camera) const {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& s : m_state.data.samples) files.push_back(s.path);
    nlohmann::json channels = nlohmann::json::array();
    for (const auto& c : m_state.dataSettings.channels)
        channels.push_back({{"use", c.use}, {"cofactor", c.cofactor}});
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : m_state.populations.groups)
        groups.push_back({{"name", g.name}, {"colour", g.colour}});
    const auto& c = m_state.colour;
    const auto& v = m_state.view;
    const auto& t = m_state.training;
    return {{"format", "sepal-session"},
            {"version", 1},
            {"files", files},
            {"data", {{"channels", channels}, {"compensate", m_state.dataSettings.compensate}}},
            {"model", modelJson(m_state.model)},
            {"embed",
             {{"k", m_state.embed.k},
              {"smooth", m_state.embed.smooth},
              {"adjust", m_state.embed.adjust}}},
            {"colour",
             {{"mode", int(c.mode)},
              {"column", c.column},
              {"labelColumn", c.labelColumn},
              {"map", c.map},
              {"low", c.lowPercentile},
              {"high", c.highPercentile}}},
            {"populations", {{"groups", groups}, {"runs", runs(m_state.populations.membership)}}},
            {"view",
             {{"pointSize", v.pointSize},
              {"alpha", v.alpha},
              {"landmarks", v.showLandmarks},
              {"graph", v.showGraph},
              {"camera", camera}}},
            {"training",
             {{"trainer", t.trainer},
              {"landmarks", t.landmarks},
              {"graphK", t.graphK},
              {"seed", t.seed},
              {"sigma", t.sigma},
              {"alpha", t.alpha},
              {"epochs", t.epochs},
              {"layout", t.layout}}}};
}

void Workspace::saveSession(const std::string& path, const std::array<float, 3>& camera) const {
    std::filesystem::path p(path);
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
    writeTextAtomically(path, sessionJson(camera).dump(1));
}

std::array<float, 3> Workspace::loadSession(const std::string& path) {
    nlohmann::json j;
    {
        std::ifstream in(path);
        if (!in) throw InputError(path + ": cannot read the session file");
        try {
            j = nlohmann::json::parse(in);
        } catch (const std::exception& e) {
            throw InputError(path + ": not a session file (" + e.what() + ")");
        }
    }
    if (j.value("format", "") != "sepal-session")
        throw InputError(path + ": not a Sepal session (no \"format\": \"sepal-session\")");
    // Everything is read into a new state first; the current one is replaced only on success.
    State next;
    std::array<float, 3> camera{};
    try {
        std::vector<io::Table> tables;
        for (const auto& f : j.at("files")) tables.push_back(readAnyTable(f.get<std::string>()));
        if (tables.empty()) throw InputError(path + ": the session lists no files");
        next.data.tables = std::move(tables);
        for (const auto& c : j.at("data").at("channels"))
            next.dataSettings.channels.push_back(
                {c.at("use").get<bool>(), c.at("cofactor").get<float>()});
        next.dataSettings.compensate = j.at("data").at("compensate").get<bool>();
        rebuildPoints(next.data, next.dataSettings);
        next.model = modelFromSession(j.at("model"));
        if (next.model.dim != next.data.points.cols)
            throw InputError(path + ": the model's dimension does not match the data");
        const auto& e = j.at("embed");
        next.embed = {e.at("k").get<int>(), e.at("smooth").get<float>(),
                      e.at("adjust").get<float>()};
        const auto& c = j.at("colour");
        next.colour.mode = ColourMode(std::clamp(c.at("mode").get<int>(), 0, 4));
        next.colour.column = c.at("column").get<int>();
        next.colour.labelColumn = c.at("labelColumn").get<int>();
        next.colour.map = c.at("map").get<std::string>();
        next.colour.lowPercentile = c.at("low").get<float>();
        next.colour.highPercentile = c.at("high").get<float>();
        for (const auto& g : j.at("populations").at("groups"))
            next.populations.groups.push_back(
                {g.at("name").get<std::string>(), g.at("colour").get<std::array<uint8_t, 3>>()});
        next.populations.membership.assign(next.data.events(), 0);
        auto r = j.at("populations").at("runs").get<std::vector<uint64_t>>();
        for (size_t i = 0; i + 2 < r.size(); i += 3)
            for (uint64_t k = r[i]; k < r[i] + r[i + 1] && k < next.data.events(); ++k)
                next.populations.membership[k] = uint8_t(r[i + 2]);
        const auto& v = j.at("view");
        next.view = {v.at("pointSize").get<float>(), v.at("alpha").get<float>(),
                     v.at("landmarks").get<bool>(), v.at("graph").get<bool>()};
        camera = v.at("camera").get<std::array<float, 3>>();
        const auto& t = j.at("training");
        next.training.trainer = t.at("trainer").get<std::string>();
        next.training.landmarks = t.at("landmarks").get<int>();
        next.training.graphK = t.at("graphK").get<int>();
        next.training.seed = t.at("seed").get<uint64_t>();
        next.training.sigma = t.at("sigma").get<float>();
        next.training.alpha = t.at("alpha").get<float>();
        next.training.epochs = t.at("epochs").get<int>();
        next.training.layout = t.at("layout").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
        throw InputError(path + ": the session is incomplete or damaged (" + e.what() + ")");
    }
    pauseTraining();
    next.counter = m_state.counter;
    m_state = std::move(next);
    for (auto p :
         {Part::Data, Part::Model, Part::Colour, Part::Populations, Part::View, Part::Training})
        m_state.bump(p);
    m_undo.clear();
    for (const auto& s : m_state.data.samples) addRecent(s.path);
    log(LogEntry::Info, "session restored from " + path);
    return camera;
}

}  // namespace sepal::app
