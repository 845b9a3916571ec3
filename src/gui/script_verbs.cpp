#include "gui/script_verbs.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/pipeline/sample_filter.h"
#include "core/transform/channel_label.h"
#include "gui/script_args.h"
#include "gui/script_exports.h"
#include "gui/script_settings.h"
#include "gui/state_json.h"
#include "ui/crash_recovery.h"
#include "ui/session_open.h"

namespace sepal::gui {

namespace {

int buttonOf(const ScriptAction& a) {
    return hasWord(a.args, "right") ? 1 : 0;
}

void open(ScriptRun& run, const ScriptAction& a) {
    ui::openPaths(run.app.context(), a.args, false);
    run.startSettling();
}

void addSamples(ScriptRun& run, const ScriptAction& a) {
    run.app.workspace().data().openFiles(a.args, true);
    run.startSettling();
}

void wait(ScriptRun& run, const ScriptAction& a) {
    run.wait = int(numberArg(a, 0));
}

void settle(ScriptRun& run, const ScriptAction&) {
    run.startSettling();
}

void scored(ScriptRun& run, const ScriptAction&) {
    run.scored = true, run.settleFrames = 0;
}

void mouse(ScriptRun& run, const ScriptAction& a) {
    InputFrame f;
    f.x = run.canvasX(numberArg(a, 0)), f.y = run.canvasY(numberArg(a, 1));
    run.frames.push_back(f);
    run.frames.push_back(f);
}

void click(ScriptRun& run, const ScriptAction& a) {
    run.press(numberArg(a, 0), numberArg(a, 1), buttonOf(a), hasWord(a.args, "ctrl"),
              hasWord(a.args, "shift"), {});
}

void drag(ScriptRun& run, const ScriptAction& a) {
    float x0 = numberArg(a, 0), y0 = numberArg(a, 1), x1 = numberArg(a, 2), y1 = numberArg(a, 3);
    std::vector<float> path;
    for (int i = 1; i <= 8; ++i)
        path.insert(path.end(), {x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8});
    run.press(x0, y0, buttonOf(a), hasWord(a.args, "ctrl"), hasWord(a.args, "shift"), path);
}

/// Landmark `a.args[0]` in canvas pixels.
std::array<float, 2> landmarkOnScreen(ScriptRun& run, const ScriptAction& a) {
    size_t l = size_t(numberArg(a, 0));
    const auto& m = run.app.workspace().state().model;
    if (l >= m.count()) throw InputError("no landmark " + std::to_string(l));
    auto p = run.app.camera().toScreen(m.low[2 * l], m.low[2 * l + 1]);
    return {p[0], p[1]};
}

void clickLandmark(ScriptRun& run, const ScriptAction& a) {
    auto p = landmarkOnScreen(run, a);
    run.press(p[0], p[1], buttonOf(a), hasWord(a.args, "ctrl"), hasWord(a.args, "shift"), {});
}

void dragLandmark(ScriptRun& run, const ScriptAction& a) {
    auto p = landmarkOnScreen(run, a);
    float dx = numberArg(a, 1), dy = numberArg(a, 2);
    std::vector<float> path;
    for (int i = 1; i <= 8; ++i) path.insert(path.end(), {p[0] + dx * i / 8, p[1] + dy * i / 8});
    run.press(p[0], p[1], 0, false, false, path);
}

void key(ScriptRun& run, const ScriptAction& a) {
    static const std::map<std::string, int> keys = {
        {"z", GLFW_KEY_Z},           {"y", GLFW_KEY_Y},
        {"delete", GLFW_KEY_DELETE}, {"f", GLFW_KEY_F},
        {"escape", GLFW_KEY_ESCAPE}, {"left", GLFW_KEY_LEFT},
        {"right", GLFW_KEY_RIGHT},   {"up", GLFW_KEY_UP},
        {"down", GLFW_KEY_DOWN},     {"home", GLFW_KEY_HOME},
        {"o", GLFW_KEY_O},           {"e", GLFW_KEY_E},
        {"s", GLFW_KEY_S},           {"l", GLFW_KEY_L}};
    if (a.args.empty() || !keys.count(a.args[0]))
        throw InputError("unknown key in script line " + std::to_string(a.line));
    InputFrame f = run.idle;
    f.ctrl = hasWord(a.args, "ctrl"), f.shift = hasWord(a.args, "shift"),
    f.key = keys.at(a.args[0]);
    run.frames.push_back(f);
    f.key = -1;
    run.frames.push_back(f);
}

// lasso NAME x y ...; split FROM NAME x y ...: the Populations menu's "Split with the lasso",
// then a lasso.
void lasso(ScriptRun& run, const ScriptAction& a) {
    const auto& args = a.args;
    const size_t first = a.verb == "split" ? 1 : 0;
    if (args.size() < first + 7)
        throw InputError(a.verb + " needs a name and at least three points");
    if (a.verb == "split") run.app.context().splitFrom = args[0];
    // "-": into the Populations window's target as it stands (a fresh name until one is chosen).
    if (args[first] != "-") {
        run.app.context().brushName = args[first];
        run.app.context().brushChosen = true;
    }
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
    run.press(path[0], path[1], 1, false, false, dense);
}

void set(ScriptRun& run, const ScriptAction& a) {
    if (a.args.size() < 2) throw InputError("set needs a key and a value");
    // The value is the rest of the line (population names have spaces).
    std::string value = a.args[1];
    for (size_t i = 2; i < a.args.size(); ++i) value += " " + a.args[i];
    applyScriptSetting(run.app, a.args[0], value);
    // The next action sees the setting everywhere: a frame passes first, in which the picture's
    // colours and panels follow it (an export right after would draw the old colouring).
    run.wait = std::max(run.wait, 1);
}

void train(ScriptRun& run, const ScriptAction& a) {
    if (!a.args.empty() && a.args[0] == "off")
        run.app.workspace().training().pause();
    else
        run.app.workspace().training().start();
}

// umap|tsne [N] [perplexity P]: polish the picture and hold until it is shown; cancel; off.
void polish(ScriptRun& run, const ScriptAction& a) {
    auto& service = run.app.workspace().polish();
    if (a.args.empty()) throw InputError("polish needs umap, tsne, cancel or off");
    if (a.args[0] == "cancel") return service.cancel();
    if (a.args[0] == "off") return service.returnToEmbedSom();
    if (a.args[0] != "umap" && a.args[0] != "tsne")
        throw InputError("polish: '" + a.args[0] + "' is not umap, tsne, cancel or off");
    app::PolishChoice c;
    c.kernel = a.args[0] == "tsne" ? PolishKernel::StudentT : PolishKernel::Umap;
    c.epochs = a.args.size() > 1 ? size_t(numberArg(a, 1)) : app::defaultPolishEpochs(c.kernel);
    if (a.args.size() > 3 && a.args[2] == "perplexity") c.perplexity = numberArg(a, 3);
    run.app.context().polish = c;
    if (service.start(c)) run.startSettling();
}

// COLUMN LEVEL REFERENCE [BLOCK|-] [METHOD] [SAMPLES|-] [COVARIATE]: what the Compare window
// compares; then hold until it is in.
void compare(ScriptRun& run, const ScriptAction& a) {
    if (a.args.size() < 3)
        throw InputError(
            "compare needs COLUMN LEVEL REFERENCE [BLOCK|-] [edgeR|GLMM] [SAMPLES|-] [COVARIATE]");
    const std::string block = a.args.size() > 3 && a.args[3] != "-" ? a.args[3] : "";
    const std::string method = a.args.size() > 4 ? a.args[4] : "edgeR";
    const std::string samples = a.args.size() > 5 && a.args[5] != "-" ? a.args[5] : "";
    const std::string covariate = a.args.size() > 6 ? a.args[6] : "";
    parseSampleFilter(samples, "compare: the samples");  // a malformed filter fails this line
    if (method != "edgeR" && method != "GLMM")
        throw InputError("compare: method " + method + ": use edgeR or GLMM");
    // What the window's lists would not offer is refused on this line, not found later.
    const SampleMetadata& m = run.app.workspace().state().metadata;
    if (m.columns.empty()) throw InputError("compare: open the samples' metadata first");
    for (const std::string& column : {a.args[0], block, covariate})
        if (!column.empty() &&
            std::find(m.columns.begin(), m.columns.end(), column) == m.columns.end())
            throw InputError("compare: no metadata column " + column +
                             " (the columns: " + commaJoined(m.columns) + ")");
    run.app.workspace().comparison().choose(
        {a.args[0], a.args[1], a.args[2], block, method, samples, covariate});
    run.compared = true, run.settleFrames = 0, run.comparedLine = a.line;
}

void recipe(ScriptRun& run, const ScriptAction& a) {
    if (!a.args.empty() && a.args[0] == "cancel")
        run.app.workspace().training().cancelRecipe();
    else
        run.app.workspace().training().runRecipe();
}

void metadata(ScriptRun& run, const ScriptAction& a) {
    if (a.args.empty()) throw InputError("metadata needs a CSV path");
    run.app.workspace().data().openSampleMetadata(a.args[0]);
}

void alignBatches(ScriptRun& run, const ScriptAction& a) {
    if (a.args.size() != 3 && a.args.size() != 4)
        throw InputError(
            "align-batches needs COLUMN ANCHORS FOLDER [CLUSTERS] (ANCHORS: COLUMN=VALUE, or - "
            "for every sample)");
    const float clusters = a.args.size() == 4 ? numberArg(a, 3) : 1;
    if (!(clusters >= 1)) throw InputError("align-batches: CLUSTERS is 1 or more");
    run.app.workspace().data().alignBatches(a.args[0], a.args[1] == "-" ? "" : a.args[1], a.args[2],
                                            size_t(clusters));
}

void spillover(ScriptRun& run, const ScriptAction& a) {
    if (a.args.empty()) throw InputError("spillover needs the path of a matrix file");
    run.app.workspace().data().loadSpillover(a.args[0]);
    run.startSettling();
}

void exportFile(ScriptRun& run, const ScriptAction& a) {
    runScriptExport(run.app, a);
}

// A session that fails to load is logged, not thrown: the tests read the error count.
void loadSession(ScriptRun& run, const ScriptAction& a) {
    if (a.args.empty()) throw InputError("load-session needs a path");
    ui::openSession(run.app.context(), a.args[0], false);
    run.startSettling();
}

void crashed(ScriptRun& run, const ScriptAction& a) {
    const std::string answer = a.args.empty() ? "" : a.args[0];
    if (answer != "restore" && answer != "dismiss")
        throw InputError("script line " + std::to_string(a.line) +
                         ": crashed takes restore or dismiss");
    auto& recovery = run.app.recovery();
    const bool answered =
        answer == "restore" ? recovery.restore(run.app.context()) : recovery.dismiss();
    if (!answered) run.app.workspace().log(app::LogEntry::Error, "no crashed session is on offer");
    run.startSettling();
}

void mergePopulation(ScriptRun& run, const ScriptAction& a) {
    if (a.args.size() < 2) throw InputError("merge-population needs two population names");
    auto& ws = run.app.workspace();
    const auto& groups = ws.state().populations.groups;
    auto find = [&](const std::string& name) {
        for (size_t i = 0; i < groups.size(); ++i)
            if (groups[i].name == name) return i;
        throw InputError("script line " + std::to_string(a.line) + ": no population " + name);
    };
    // Names with spaces: FROM ... into INTO ...
    const auto into = std::find(a.args.begin(), a.args.end(), "into");
    const auto joined = [](auto begin, auto end) {
        std::string name;
        for (auto it = begin; it != end; ++it) name += (name.empty() ? "" : " ") + *it;
        return name;
    };
    if (into != a.args.end())
        ws.populations().merge(find(joined(a.args.begin(), into)),
                               find(joined(into + 1, a.args.end())));
    else
        ws.populations().merge(find(a.args[0]), find(a.args[1]));
}

void populationsFromLandmarks(ScriptRun& run, const ScriptAction& a) {
    if (a.args.empty()) throw InputError("populations-from-landmarks needs a count");
    run.app.workspace().populations().fromLandmarks(size_t(numberArg(a, 0)));
    run.startSettling();
}

void autosave(ScriptRun& run, const ScriptAction&) {
    run.app.autosaveNow();
}

// The application acts on panel, fit and screenshot during the next frame, hence the wait.
void panel(ScriptRun& run, const ScriptAction& a) {
    if (a.args.size() < 2) throw InputError("panel needs a title and open or close");
    run.app.showPanel(a.args[0], a.args[1] == "open");
    run.wait = 1;
}

// A new biaxial plot window: the population's cells ("all" for every cell) on two channels,
// with a gate tool; the plots open side by side.
void plot(ScriptRun& run, const ScriptAction& a) {
    if (a.args.size() < 3)
        throw InputError("plot needs a population (or all), an x and a y channel");
    const app::State& st = run.app.workspace().state();
    if (st.data.tables.empty()) throw InputError("plot: no data is open");
    ui::BiaxialSettings s;
    s.parent = a.args[0] == "all" ? "" : st.gating.gates.tree.population(a.args[0]).id;
    // The y channel is the rest of the line: channel names may hold spaces ("PE-TxRed YG-A").
    std::string y = a.args[2];
    for (size_t i = 3; i < a.args.size(); ++i) y += " " + a.args[i];
    const io::Table& table = st.data.tables[0];
    s.x = table.channels[resolveChannel(table, a.args[1], "plot")].name;
    s.y = table.channels[resolveChannel(table, y, "plot")].name;
    s.gateName = "gate";
    run.app.context().plots.push_back(s);
    run.wait = 2;
}

void fit(ScriptRun& run, const ScriptAction&) {
    run.app.context().fitRequested = true;
    run.wait = 1;
}

void screenshot(ScriptRun& run, const ScriptAction& a) {
    if (a.args.empty()) throw InputError("screenshot needs a path");
    run.app.requestScreenshot(a.args[0]);
    run.wait = 1;
}

void state(ScriptRun& run, const ScriptAction&) {
    std::printf("%s\n", stateJson(run.app).c_str());
    std::fflush(stdout);
}

void quit(ScriptRun& run, const ScriptAction&) {
    run.app.quit(run.failed > 0 ? 1 : 0);  // a line that failed is said in the exit status
    run.stopped = true;
}

// clang-format off
const ScriptVerb kVerbs[] = {
    {"open", "PATH...: open files (several become samples)", open},
    {"add-samples", "PATH...: add files as samples", addSamples},
    {"wait", "N: let N frames pass", wait},
    {"settle", "wait until nothing is pending", settle},
    {"scored", "wait until the picture's quality (Stats, Neighbours kept) is in", scored},
    {"mouse", "X Y: move the mouse to canvas pixel (X, Y)", mouse},
    {"click", "X Y [right] [ctrl] [shift]: press and release at canvas pixel (X, Y)", click},
    {"drag", "X1 Y1 X2 Y2 [right] [ctrl] [shift]: press, move over frames, release", drag},
    {"drag-landmark", "I DX DY: drag landmark I by (DX, DY) pixels", dragLandmark},
    {"click-landmark", "I [right] [ctrl]: click on landmark I", clickLandmark},
    {"key", "NAME [ctrl] [shift]: press a key (z, y, o, e, s, l, delete, f, escape, arrows, home)", key},
    {"lasso", "NAME X Y X Y ...: right-drag a lasso into population NAME (-: the window's)", lasso},
    {"split", "FROM NAME X Y X Y ...: split population FROM with a lasso into NAME", lasso},
    {"set", "KEY VALUE: a setting (the keys below)", set},
    {"train", "on|off: start or pause refining the landmarks step by step", train},
    {"polish", "umap|tsne [N] [perplexity P]: polish the picture (N epochs) and wait for it; cancel; off: EmbedSOM's picture again", polish},
    {"recipe", "[cancel]: train the Training window's recipe (or cancel it)", recipe},
    {"metadata", "PATH: the samples' metadata CSV", metadata},
    {"align-batches", "COLUMN ANCHORS|- FOLDER [CLUSTERS]: align the samples' batches (in CLUSTERS clusters), open the aligned files",
     alignBatches},
    {"compare", "COLUMN LEVEL REFERENCE [BLOCK|-] [edgeR|GLMM] [SAMPLES|-] [COVARIATE]: compare two conditions (Compare window; SAMPLES as stats --samples: type!=reference; COVARIATE a column the design adjusts for) and wait for it", compare},
    {"spillover", "PATH: compensate with the spillover matrix in PATH", spillover},
    {"export", "KIND PATH ...: write a file (the kinds below)", exportFile},
    {"load-session", "PATH: restore a session", loadSession},
    {"crashed", "restore|dismiss: answer the offer of the last crashed session", crashed},
    {"merge-population", "FROM INTO, or FROM... into INTO... (names with spaces): merge population FROM into INTO", mergePopulation},
    {"populations-from-landmarks", "K: K populations from the landmarks", populationsFromLandmarks},
    {"autosave", "write the autosave now (with --autosave-dir)", autosave},
    {"panel", "TITLE open|close: open or close a side-bar section", panel},
    {"plot", "POPULATION|all X Y: open a Biaxial plot of the population's cells (Y may hold spaces)", plot},
    {"fit", "fit the view", fit},
    {"screenshot", "PATH: the window as PNG", screenshot},
    {"state", "print the state as one JSON line", state},
    {"quit", "leave (exit status 1 when a line failed, else 0)", quit},
};
// clang-format on

}  // namespace

std::span<const ScriptVerb> scriptVerbs() {
    return kVerbs;
}

const ScriptVerb* findScriptVerb(const std::string& name) {
    for (const auto& v : kVerbs)
        if (name == v.name) return &v;
    return nullptr;
}

}  // namespace sepal::gui
