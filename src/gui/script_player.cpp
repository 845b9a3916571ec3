#include "gui/script_player.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/common/error.h"
#include "core/transform/channel_label.h"
#include "gui/application.h"
#include "nlohmann/json.hpp"
#include "ui/crash_recovery.h"
#include "ui/small_multiples.h"

namespace sepal::gui {

namespace {
bool has(const std::vector<std::string>& args, const char* word) {
    return std::find(args.begin(), args.end(), word) != args.end();
}

float number(const ScriptAction& a, size_t i) {
    if (i >= a.args.size())
        throw InputError("script line " + std::to_string(a.line) + ": '" + a.verb +
                         "' needs more arguments");
    try {
        return std::stof(a.args[i]);
    } catch (...) {
        throw InputError("script line " + std::to_string(a.line) + ": '" + a.args[i] +
                         "' is not a number");
    }
}
}  // namespace

std::string stateJson(Application& application) {
    auto& ws = application.workspace();
    const auto& canvas = application.canvas();
    const auto& camera = application.camera();
    const auto& ctx = application.context();
    const auto& st = ws.state();
    nlohmann::json pops = nlohmann::json::array();
    auto sizes = ws.populationSizes();
    for (size_t i = 0; i < st.populations.groups.size(); ++i)
        pops.push_back({{"name", st.populations.groups[i].name}, {"size", sizes[i]}});
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : st.data.samples) samples.push_back(s.path);
    // What the Counts window shows: sample, population, cells.
    nlohmann::json counts = nlohmann::json::array();
    for (const auto& c : ws.populationCounts()) counts.push_back({c.sample, c.population, c.cells});
    const char* modes[] = {"marker",     "sample", "label",     "density",
                           "population", "group",  "neighbours"};
    nlohmann::json j = {{"events", st.data.events()},
                        {"samples", samples},
                        {"columns", st.data.columns},
                        {"landmarks", st.model.count()},
                        {"locked", st.model.count() - size_t(std::count(st.model.locked.begin(),
                                                                        st.model.locked.end(), 0))},
                        {"populations", pops},
                        {"counts", counts},
                        {"colour_mode", modes[int(st.colour.mode)]},
                        {"errors", ws.errorCount()},
                        {"undo", ws.undoStack().undoLabel()},
                        {"redo", ws.undoStack().redoLabel()},
                        {"sweeps", ws.stats().sweeps},
                        {"incomplete_events", st.data.incompleteEvents},
                        {"backend", ws.backend().name}};
    // Window pixels of the canvas and of each landmark, so tests can look at the screenshot.
    auto o = canvas.origin();
    j["canvas"] = {o[0], o[1], camera.width(), camera.height()};
    nlohmann::json marks = nlohmann::json::array();
    for (size_t l = 0; l < st.model.count(); ++l) {
        auto p = camera.toScreen(st.model.low[2 * l], st.model.low[2 * l + 1]);
        marks.push_back({o[0] + p[0], o[1] + p[1]});
    }
    j["landmark_screen"] = marks;
    // The corner the colour key takes, in window pixels (empty when none is drawn).
    nlohmann::json keyBox = nlohmann::json::array();
    float right = o[0] + camera.width(), bottom = o[1] + camera.height();
    if (ctx.keySize[0] > 0)
        keyBox = {right - ctx.keySize[0], bottom - ctx.keySize[1], right, bottom};
    j["colour_key"] = keyBox;
    j["colour_title"] = ws.colourKey().title;
    // The gates and the Biaxial window's plot, so tests can draw gates with the mouse.
    nlohmann::json gates = nlohmann::json::array();
    for (const auto& g : st.gating.gates)
        gates.push_back({{"name", g.name},
                         {"x", g.axes.steps[0].name},
                         {"y", g.axes.steps[1].name},
                         {"polygon", g.polygon}});
    j["gates"] = gates;
    j["gated"] = st.gating.count(st.data.events());
    const auto& plot = ctx.biaxialFrame;
    j["biaxial"] = plot.shown ? nlohmann::json{{"box", {plot.x, plot.y, plot.width, plot.height}},
                                               {"low", plot.low},
                                               {"high", plot.high},
                                               {"x", ctx.biaxial.x},
                                               {"y", ctx.biaxial.y}}
                              : nlohmann::json(nullptr);
    // The small multiples on the canvas, each panel's title and box in window pixels.
    nlohmann::json multiples = nlohmann::json::array();
    for (const auto& p : ui::smallMultiplePanels(st, camera.width(), camera.height()))
        multiples.push_back(
            {{"title", p.title}, {"box", {o[0] + p.x, o[1] + p.y, p.width, p.height}}});
    j["small_multiples"] = multiples;
    j["legend"] = nlohmann::json::array();
    for (const auto& e : ws.colourKey().legend) j["legend"].push_back(e.name);
    j["crash_offer"] = application.recovery().offered();
    j["crash_dialog"] = application.recovery().dialogOpen();
    return j.dump();
}

ScriptPlayer::ScriptPlayer(Application& app, std::vector<ScriptAction> actions)
    : m_app(app), m_actions(std::move(actions)) {
    m_idle.x = -1, m_idle.y = -1;
}

float ScriptPlayer::canvasX(float x) const {
    return m_app.canvas().origin()[0] + x;
}
float ScriptPlayer::canvasY(float y) const {
    return m_app.canvas().origin()[1] + y;
}

InputFrame ScriptPlayer::input() {
    if (m_frames.empty()) return m_idle;
    InputFrame f = m_frames.front();
    m_frames.pop_front();
    m_idle = f;
    for (bool& d : m_idle.down) d = false;
    m_idle.key = -1;
    m_idle.wheel = 0;
    m_idle.ctrl = m_idle.shift = false;
    return f;
}

void ScriptPlayer::press(float x, float y, int button, bool ctrl, bool shift,
                         const std::vector<float>& path) {
    // Hover first so the canvas sees what is under the mouse, then press, move, release.
    InputFrame f;
    f.x = canvasX(x), f.y = canvasY(y), f.ctrl = ctrl, f.shift = shift;
    m_frames.push_back(f);
    f.down[button] = true;
    m_frames.push_back(f);
    for (size_t i = 0; i + 1 < path.size(); i += 2) {
        f.x = canvasX(path[i]), f.y = canvasY(path[i + 1]);
        m_frames.push_back(f);
    }
    f.down[button] = false;
    m_frames.push_back(f);
    m_frames.push_back(f);
}

void ScriptPlayer::afterFrame() {
    if (!m_frames.empty()) return;
    if (m_wait > 0) {
        --m_wait;
        return;
    }
    if (m_settle) {
        if (!m_app.idle() && ++m_settleFrames < 3000) return;
        m_settle = false;
    }
    if (m_scored) {
        const auto& q = m_app.workspace().quality();
        if ((!q.valid || q.scoring) && ++m_settleFrames < 3000) return;
        m_scored = false;
    }
    while (m_next < m_actions.size() && m_frames.empty() && m_wait == 0 && !m_settle && !m_scored) {
        const auto& a = m_actions[m_next++];
        try {
            start(a);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "script line %d (%s): %s\n", a.line, a.verb.c_str(), e.what());
            m_app.workspace().log(app::LogEntry::Error, std::string("script: ") + e.what());
        }
    }
    if (m_next >= m_actions.size() && m_frames.empty() && m_wait == 0 && !m_settle && !m_scored)
        m_app.quit(0);
}

void ScriptPlayer::start(const ScriptAction& a) {
    auto& ws = m_app.workspace();
    const auto& args = a.args;
    int button = has(args, "right") ? 1 : 0;
    bool ctrl = has(args, "ctrl"), shift = has(args, "shift");
    if (a.verb == "open" || a.verb == "add-samples") {
        ws.openFiles(args, a.verb == "add-samples");
        m_settle = true, m_settleFrames = 0;
    } else if (a.verb == "wait") {
        m_wait = int(number(a, 0));
    } else if (a.verb == "settle") {
        m_settle = true, m_settleFrames = 0;
    } else if (a.verb == "scored") {
        // Until the picture's quality (Stats, colour by neighbours kept) is scored.
        m_scored = true, m_settleFrames = 0;
    } else if (a.verb == "mouse") {
        InputFrame f;
        f.x = canvasX(number(a, 0)), f.y = canvasY(number(a, 1));
        m_frames.push_back(f);
        m_frames.push_back(f);
    } else if (a.verb == "click") {
        press(number(a, 0), number(a, 1), button, ctrl, shift, {});
    } else if (a.verb == "drag") {
        float x0 = number(a, 0), y0 = number(a, 1), x1 = number(a, 2), y1 = number(a, 3);
        std::vector<float> path;
        for (int i = 1; i <= 8; ++i)
            path.insert(path.end(), {x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8});
        press(x0, y0, button, ctrl, shift, path);
    } else if (a.verb == "drag-landmark" || a.verb == "click-landmark") {
        size_t l = size_t(number(a, 0));
        const auto& m = ws.state().model;
        if (l >= m.count()) throw InputError("no landmark " + std::to_string(l));
        auto p = m_app.camera().toScreen(m.low[2 * l], m.low[2 * l + 1]);
        if (a.verb == "click-landmark") {
            press(p[0], p[1], button, ctrl, shift, {});
        } else {
            float dx = number(a, 1), dy = number(a, 2);
            std::vector<float> path;
            for (int i = 1; i <= 8; ++i)
                path.insert(path.end(), {p[0] + dx * i / 8, p[1] + dy * i / 8});
            press(p[0], p[1], 0, false, false, path);
        }
    } else if (a.verb == "key") {
        static const std::map<std::string, int> keys = {
            {"z", GLFW_KEY_Z},         {"y", GLFW_KEY_Y},           {"delete", GLFW_KEY_DELETE},
            {"f", GLFW_KEY_F},         {"escape", GLFW_KEY_ESCAPE}, {"left", GLFW_KEY_LEFT},
            {"right", GLFW_KEY_RIGHT}, {"up", GLFW_KEY_UP},         {"down", GLFW_KEY_DOWN},
            {"home", GLFW_KEY_HOME}};
        if (args.empty() || !keys.count(args[0]))
            throw InputError("unknown key in script line " + std::to_string(a.line));
        InputFrame f = m_idle;
        f.ctrl = ctrl, f.shift = shift, f.key = keys.at(args[0]);
        m_frames.push_back(f);
        f.key = -1;
        m_frames.push_back(f);
    } else if (a.verb == "lasso" || a.verb == "split") {
        // split FROM NAME x y ...: the Populations menu's "Split with the lasso", then a lasso.
        const size_t first = a.verb == "split" ? 1 : 0;
        if (args.size() < first + 7)
            throw InputError(a.verb + " needs a name and at least three points");
        if (a.verb == "split") m_app.context().splitFrom = args[0];
        m_app.context().brushName = args[first];
        std::vector<float> path;
        for (size_t i = first + 1; i + 1 < args.size(); i += 2)
            path.insert(path.end(), {std::stof(args[i]), std::stof(args[i + 1])});
        path.insert(path.end(), {path[0], path[1]});
        // Fill in the segments so the lasso is drawn as a user would drag it.
        std::vector<float> dense;
        for (size_t i = 2; i < path.size(); i += 2)
            for (int s = 1; s <= 4; ++s)
                dense.insert(dense.end(), {path[i - 2] + (path[i] - path[i - 2]) * s / 4,
                                           path[i - 1] + (path[i + 1] - path[i - 1]) * s / 4});
        press(path[0], path[1], 1, false, false, dense);
    } else if (a.verb == "set") {
        if (args.size() < 2) throw InputError("set needs a key and a value");
        const std::string& k = args[0];
        const std::string& v = args[1];
        auto st = ws.state();
        if (k == "colour.mode") {
            static const std::map<std::string, app::ColourMode> modes = {
                {"marker", app::ColourMode::Marker},         {"sample", app::ColourMode::Sample},
                {"label", app::ColourMode::Label},           {"density", app::ColourMode::Density},
                {"population", app::ColourMode::Population}, {"group", app::ColourMode::Group},
                {"neighbours", app::ColourMode::Neighbours}};
            if (!modes.count(v)) throw InputError("unknown colour mode " + v);
            st.colour.mode = modes.at(v);
            ws.setColour(st.colour);
        } else if (k == "colour.marker") {
            // A channel name ("Nd142Di") or a marker name ("CD4"), as the Colour window lists.
            // Resolved as sepal-cli resolves --color: a marker on two channels is refused.
            if (st.data.tables.empty()) throw InputError("set colour.marker: no data is open");
            const size_t channel = resolveChannel(st.data.tables[0], v, "set colour.marker");
            auto it = std::find(st.data.columns.begin(), st.data.columns.end(),
                                st.data.tables[0].channels[channel].name);
            if (it == st.data.columns.end())
                throw InputError("set colour.marker: " + v + " is not among the used channels");
            st.colour.column = int(it - st.data.columns.begin());
            st.colour.mode = app::ColourMode::Marker;
            ws.setColour(st.colour);
        } else if (k == "biaxial.x" || k == "biaxial.y") {
            // What the Biaxial window's combos choose: a channel name or a marker.
            if (st.data.tables.empty()) throw InputError("set " + k + ": no data is open");
            const size_t channel = resolveChannel(st.data.tables[0], v, "set " + k);
            auto& ctx = m_app.context();
            (k == "biaxial.x" ? ctx.biaxial.x : ctx.biaxial.y) =
                st.data.tables[0].channels[channel].name;
        } else if (k == "biaxial.tool") {
            if (v != "rectangle" && v != "polygon")
                throw InputError("biaxial.tool: rectangle or polygon");
            m_app.context().biaxial.polygon = v == "polygon";
        } else if (k == "biaxial.colour") {
            m_app.context().biaxial.byPopulation = v == "population";
        } else if (k == "biaxial.name") {
            m_app.context().biaxial.gateName = v;
        } else if (k == "view.multiples") {
            st.view.smallMultiples = v == "on", ws.setView(st.view);
        } else if (k == "view.panels") {
            // "sample", or a metadata column's name.
            const auto& columns = st.metadata.columns;
            const auto it = std::find(columns.begin(), columns.end(), v);
            if (v != "sample" && it == columns.end())
                throw InputError("view.panels: sample or a metadata column, not " + v);
            st.view.panelsBy = v == "sample" ? -1 : int(it - columns.begin());
            ws.setView(st.view);
        } else if (k == "colour.map") {
            st.colour.map = v, ws.setColour(st.colour);
        } else if (k == "view.size") {
            st.view.pointSize = std::stof(v), ws.setView(st.view);
        } else if (k == "view.alpha") {
            st.view.alpha = std::stof(v), ws.setView(st.view);
        } else if (k == "embed.k") {
            st.embed.k = std::stoi(v), ws.setEmbed(st.embed);
        } else if (k == "embed.smooth") {
            st.embed.smooth = std::stof(v), ws.setEmbed(st.embed);
        } else if (k == "training.trainer") {
            st.training.trainer = v, ws.setTraining(st.training);
        } else if (k == "training.landmarks") {
            st.training.landmarks = std::stoi(v), ws.setTraining(st.training);
        } else if (k == "training.seed") {
            st.training.seed = std::stoull(v), ws.setTraining(st.training);
        } else if (k == "training.recipe") {
            st.training.recipe = v, ws.setTraining(st.training);
        } else if (k == "training.supervise") {
            st.training.supervise = v == "none" ? "" : v, ws.setTraining(st.training);
        } else if (k == "training.supervisionStrength") {
            st.training.supervisionStrength = std::stof(v), ws.setTraining(st.training);
        } else {
            throw InputError("unknown setting " + k);
        }
        ws.seal();
    } else if (a.verb == "train") {
        if (!args.empty() && args[0] == "off")
            ws.pauseTraining();
        else
            ws.startTraining();
    } else if (a.verb == "recipe") {
        // "recipe" trains the Training window's recipe (Train); "recipe cancel" cancels it.
        if (!args.empty() && args[0] == "cancel")
            ws.cancelRecipe();
        else
            ws.runRecipe();
    } else if (a.verb == "metadata") {
        if (args.empty()) throw InputError("metadata needs a CSV path");
        ws.openSampleMetadata(args[0]);
    } else if (a.verb == "spillover") {
        if (args.empty()) throw InputError("spillover needs the path of a matrix file");
        ws.loadSpillover(args[0]);
        m_settle = true, m_settleFrames = 0;
    } else if (a.verb == "export") {
        if (args.size() < 2) throw InputError("export needs a kind and a path");
        const std::string& kind = args[0];
        const std::string& path = args[1];
        if (kind == "csv" || kind == "fcs") {
            // Options after the path: transformed, used (channels), per-population.
            ExportOptions options;
            for (size_t i = 2; i < args.size(); ++i) {
                if (args[i] == "transformed")
                    options.values = ExportValues::Transformed;
                else if (args[i] == "used")
                    options.allChannels = false;
                else if (args[i] == "per-population")
                    options.perPopulation = true;
            }
            ws.exportEvents(path, options);
        } else if (kind == "model")
            ws.exportModel(path);
        else if (kind == "heatmap")
            ws.exportHeatmap(path);
        else if (kind == "counts")
            ws.exportPopulationCounts(path);
        else if (kind == "gates")
            ws.exportGates(path);
        else if (kind == "session")
            ws.saveSession(path, m_app.camera().state());
        else if (kind == "png") {
            ui::PngRequest r{path, args.size() > 3 ? int(number(a, 2)) : 1600,
                             args.size() > 3 ? int(number(a, 3)) : 1200, true};
            // Words after the size draw what exported pictures leave out by default.
            for (size_t i = 4; i < args.size(); ++i) {
                r.landmarks = r.landmarks || args[i] == "landmarks";
                r.graph = r.graph || args[i] == "graph";
            }
            m_app.exportPng(r);
        } else
            throw InputError("unknown export kind " + kind);
        std::printf("{\"exported\": \"%s\", \"kind\": \"%s\"}\n", path.c_str(), kind.c_str());
    } else if (a.verb == "load-session") {
        if (args.empty()) throw InputError("load-session needs a path");
        try {
            m_app.camera().setState(ws.loadSession(args[0]));
        } catch (const std::exception& e) {
            ws.log(app::LogEntry::Error, e.what());
        }
        m_settle = true, m_settleFrames = 0;
    } else if (a.verb == "crashed") {
        const std::string answer = args.empty() ? "" : args[0];
        if (answer != "restore" && answer != "dismiss")
            throw InputError("script line " + std::to_string(a.line) +
                             ": crashed takes restore or dismiss");
        const bool answered = answer == "restore" ? m_app.recovery().restore(m_app.context())
                                                  : m_app.recovery().dismiss();
        if (!answered) ws.log(app::LogEntry::Error, "no crashed session is on offer");
        m_settle = true, m_settleFrames = 0;
    } else if (a.verb == "merge-population") {
        if (args.size() < 2) throw InputError("merge-population needs two population names");
        const auto& groups = ws.state().populations.groups;
        auto find = [&](const std::string& name) {
            for (size_t i = 0; i < groups.size(); ++i)
                if (groups[i].name == name) return i;
            throw InputError("script line " + std::to_string(a.line) + ": no population " + name);
        };
        ws.mergePopulations(find(args[0]), find(args[1]));
    } else if (a.verb == "populations-from-landmarks") {
        if (args.empty()) throw InputError("populations-from-landmarks needs a count");
        ws.populationsFromLandmarks(size_t(number(a, 0)));
        m_settle = true, m_settleFrames = 0;
    } else if (a.verb == "autosave") {
        m_app.autosaveNow();
    } else if (a.verb == "panel") {
        if (args.size() < 2) throw InputError("panel needs a title and open or close");
        m_app.showPanel(args[0], args[1] == "open");
        m_wait = 1;
    } else if (a.verb == "fit") {
        m_app.context().fitRequested = true;
        m_wait = 1;
    } else if (a.verb == "screenshot") {
        if (args.empty()) throw InputError("screenshot needs a path");
        m_app.requestScreenshot(args[0]);
        m_wait = 1;
    } else if (a.verb == "state") {
        std::printf("%s\n", stateJson(m_app).c_str());
        std::fflush(stdout);
    } else if (a.verb == "quit") {
        m_app.quit(0);
        m_next = m_actions.size();
    }
}

}  // namespace sepal::gui
