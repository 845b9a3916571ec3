#include "gui/script_settings.h"

#include <algorithm>
#include <map>

#include "core/common/error.h"
#include "core/transform/channel_label.h"

namespace sepal::gui {

namespace {

using app::State;

void colourMode(Application& app, State& st, const std::string& v) {
    static const std::map<std::string, app::ColourMode> modes = {
        {"marker", app::ColourMode::Marker},         {"sample", app::ColourMode::Sample},
        {"label", app::ColourMode::Label},           {"density", app::ColourMode::Density},
        {"population", app::ColourMode::Population}, {"group", app::ColourMode::Group},
        {"neighbours", app::ColourMode::Neighbours}, {"change", app::ColourMode::Change}};
    if (!modes.count(v)) throw InputError("unknown colour mode " + v);
    st.colour.mode = modes.at(v);
    app.workspace().edits().setColour(st.colour);
}

// A channel name ("Nd142Di") or a marker name ("CD4"), as the Colour window lists. Resolved as
// sepal-cli resolves --color: a marker on two channels is refused.
void colourMarker(Application& app, State& st, const std::string& v) {
    if (st.data.tables.empty()) throw InputError("set colour.marker: no data is open");
    const size_t channel = resolveChannel(st.data.tables[0], v, "set colour.marker");
    const std::string& name = st.data.tables[0].channels[channel].name;
    auto it = std::find(st.data.columns.begin(), st.data.columns.end(), name);
    if (it != st.data.columns.end()) {
        st.colour.column = int(it - st.data.columns.begin());
        st.colour.stateColumn = -1;
    } else {
        // A state marker kept beside the embedded columns, as the Colour window lists them.
        const auto state = app.workspace().populations().stateColumns().pipeline.columns();
        auto s = std::find(state.begin(), state.end(), name);
        if (s == state.end())
            throw InputError("set colour.marker: " + v +
                             " is neither embedded nor a state marker (the Colour window lists "
                             "both)");
        st.colour.stateColumn = int(s - state.begin());
    }
    st.colour.mode = app::ColourMode::Marker;
    app.workspace().edits().setColour(st.colour);
}

// What the Biaxial window's combos choose: a channel name or a marker. `key` names the axis in
// the errors.
void biaxialAxis(const State& st, const std::string& key, const std::string& v, std::string& axis) {
    if (st.data.tables.empty()) throw InputError("set " + key + ": no data is open");
    const size_t channel = resolveChannel(st.data.tables[0], v, "set " + key);
    axis = st.data.tables[0].channels[channel].name;
}

void biaxialX(Application& app, State& st, const std::string& v) {
    biaxialAxis(st, "biaxial.x", v, app.context().firstPlot().x);
}

void biaxialY(Application& app, State& st, const std::string& v) {
    biaxialAxis(st, "biaxial.y", v, app.context().firstPlot().y);
}

void biaxialTool(Application& app, State&, const std::string& v) {
    static const std::pair<const char*, ui::GateTool> tools[] = {
        {"rectangle", ui::GateTool::Rectangle},
        {"polygon", ui::GateTool::Polygon},
        {"ellipse", ui::GateTool::Ellipse},
        {"quadrant", ui::GateTool::Quadrant},
        {"range", ui::GateTool::Range}};
    for (const auto& [name, tool] : tools)
        if (v == name) {
            app.context().firstPlot().tool = tool;
            return;
        }
    throw InputError("biaxial.tool: rectangle, polygon, ellipse, quadrant or range");
}

void biaxialParent(Application& app, State& st, const std::string& v) {
    app.context().firstPlot().parent =
        v.empty() || v == "all" ? "" : st.gating.gates.tree.population(v).id;
}

void gatesEmbed(Application& app, State& st, const std::string& v) {
    app.workspace().gates().embed(v.empty() || v == "all" ? ""
                                                          : st.gating.gates.tree.population(v).id);
}

void biaxialWindows(Application& app, State&, const std::string& v) {
    if (v != "on" && v != "off") throw InputError("biaxial.windows: on or off");
    for (ui::BiaxialSettings& plot : app.context().plots) plot.open = v == "on";
}

void heatmapWindow(Application& app, State&, const std::string& v) {
    if (v != "on" && v != "off") throw InputError("heatmap.window: on or off");
    app.context().heatmapWindow = v == "on";
}

void gatesRetrain(Application& app, State&, const std::string& v) {
    if (v != "on" && v != "off") throw InputError("gates.retrain: on or off");
    app.workspace().gates().setRetrainOnChange(v == "on");
}

void biaxialColour(Application& app, State&, const std::string& v) {
    app.context().firstPlot().byPopulation = v == "population";
}

void biaxialName(Application& app, State&, const std::string& v) {
    app.context().firstPlot().gateName = v;
}

void viewLandmarks(Application& app, State& st, const std::string& v) {
    st.view.showLandmarks = v == "on", app.workspace().edits().setView(st.view);
}

void viewMultiples(Application& app, State& st, const std::string& v) {
    st.view.smallMultiples = v == "on", app.workspace().edits().setView(st.view);
}

// "sample", or a metadata column's name.
void viewPanels(Application& app, State& st, const std::string& v) {
    const auto& columns = st.metadata.columns;
    const auto it = std::find(columns.begin(), columns.end(), v);
    if (v != "sample" && it == columns.end())
        throw InputError("view.panels: sample or a metadata column, not " + v);
    st.view.panelsBy = v == "sample" ? -1 : int(it - columns.begin());
    app.workspace().edits().setView(st.view);
}

void colourHighlight(Application& app, State& st, const std::string& v) {
    st.colour.highlight = v == "none" ? "" : v, app.workspace().edits().setColour(st.colour);
}

void colourMap(Application& app, State& st, const std::string& v) {
    st.colour.map = v, app.workspace().edits().setColour(st.colour);
}

void viewSize(Application& app, State& st, const std::string& v) {
    st.view.pointSize = std::stof(v), app.workspace().edits().setView(st.view);
}

void viewAlpha(Application& app, State& st, const std::string& v) {
    st.view.alpha = std::stof(v), app.workspace().edits().setView(st.view);
}

void embedK(Application& app, State& st, const std::string& v) {
    st.embed.k = std::stoi(v), app.workspace().edits().setEmbed(st.embed);
}

void embedSmooth(Application& app, State& st, const std::string& v) {
    st.embed.smooth = std::stof(v), app.workspace().edits().setEmbed(st.embed);
}

void trainingTrainer(Application& app, State& st, const std::string& v) {
    st.training.trainer = v, app.workspace().training().setSettings(st.training);
}

void trainingLandmarks(Application& app, State& st, const std::string& v) {
    st.training.landmarks = std::stoi(v), app.workspace().training().setSettings(st.training);
}

void trainingSeed(Application& app, State& st, const std::string& v) {
    st.training.seed = std::stoull(v), app.workspace().training().setSettings(st.training);
}

void trainingRecipe(Application& app, State& st, const std::string& v) {
    st.training.recipe = v, app.workspace().training().setSettings(st.training);
}

void trainingSupervise(Application& app, State& st, const std::string& v) {
    st.training.supervise = v == "none" ? "" : v;
    app.workspace().training().setSettings(st.training);
}

void trainingSupervisionStrength(Application& app, State& st, const std::string& v) {
    st.training.supervisionStrength = std::stof(v);
    app.workspace().training().setSettings(st.training);
}

// clang-format off
const ScriptSetting kSettings[] = {
    {"colour.mode", "marker, sample, label, density, population, group, neighbours or change", colourMode},
    {"colour.marker", "a channel or a marker; colours by it", colourMarker},
    {"biaxial.x", "the Biaxial window's x: a channel or a marker", biaxialX},
    {"biaxial.y", "the Biaxial window's y: a channel or a marker", biaxialY},
    {"biaxial.tool", "rectangle, polygon, ellipse, quadrant or range", biaxialTool},
    {"biaxial.parent", "the population the first Biaxial plot shows (a path, or all)", biaxialParent},
    {"gates.embed", "the population the picture embeds (a path, or all)", gatesEmbed},
    {"biaxial.windows", "on or off: show or hide every Biaxial plot's window", biaxialWindows},
    {"heatmap.window", "on or off: the heatmap in a large window of its own", heatmapWindow},
    {"gates.retrain", "on or off: a change of the embedded population re-trains the picture", gatesRetrain},
    {"biaxial.colour", "population, or anything else for density", biaxialColour},
    {"biaxial.name", "the name of the next gate", biaxialName},
    {"view.multiples", "on, or anything else for off", viewMultiples},
    {"view.landmarks", "on, or anything else for off: the landmarks shown (and draggable)", viewLandmarks},
    {"view.panels", "sample or a metadata column: what each small multiple shows", viewPanels},
    {"colour.map", "a colour map's name", colourMap},
    {"colour.highlight", "a population shown in colour, the others greyed (none: all); the Compare window's box plot shows it", colourHighlight},
    {"view.size", "point size in pixels", viewSize},
    {"view.alpha", "point opacity", viewAlpha},
    {"embed.k", "EmbedSOM's neighbours", embedK},
    {"embed.smooth", "EmbedSOM's smoothing", embedSmooth},
    {"training.trainer", "a trainer's name", trainingTrainer},
    {"training.landmarks", "how many landmarks to train", trainingLandmarks},
    {"training.seed", "the training's random seed", trainingSeed},
    {"training.recipe", "a recipe's name", trainingRecipe},
    {"training.supervise", "a label column, populations or none", trainingSupervise},
    {"training.supervisionStrength", "how strongly the labels pull", trainingSupervisionStrength},
};
// clang-format on

}  // namespace

std::span<const ScriptSetting> scriptSettings() {
    return kSettings;
}

void applyScriptSetting(Application& app, const std::string& key, const std::string& value) {
    auto& ws = app.workspace();
    auto st = ws.state();
    const auto it = std::find_if(std::begin(kSettings), std::end(kSettings),
                                 [&](const ScriptSetting& s) { return key == s.key; });
    if (it == std::end(kSettings)) throw InputError("unknown setting " + key);
    it->apply(app, st, value);
    // One undo step per line, as a user's change in a window is one.
    ws.edits().seal();
}

}  // namespace sepal::gui
