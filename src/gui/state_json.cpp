#include "gui/state_json.h"

#include <algorithm>
#include <cstdio>

#include <imgui.h>

#include "core/common/text.h"
#include "gui/application.h"
#include "nlohmann/json.hpp"
#include "ui/crash_recovery.h"
#include "ui/small_multiples.h"

namespace sepal::gui {

namespace {
/// The characters of `texts` that the interface's font has no glyph for (drawn as "?"), each
/// once, as "U+03B3".
nlohmann::json unshownCharacters(const std::vector<std::string>& texts) {
    nlohmann::json out = nlohmann::json::array();
    std::vector<int> seen;
    const ImFont* font = ImGui::GetFont();
    for (const std::string& text : texts)
        for (const int cp : utf8CodePoints(text)) {
            if (cp < 0x80 || std::find(seen.begin(), seen.end(), cp) != seen.end()) continue;
            seen.push_back(cp);
            // Beyond U+FFFF the font's 16-bit characters cannot reach: never drawn.
            if (font && cp <= 0xFFFF && font->FindGlyphNoFallback(ImWchar(cp))) continue;
            char code[16];
            std::snprintf(code, sizeof code, "U+%04X", unsigned(cp));
            out.push_back(code);
        }
    return out;
}

/// The names the interface shows: every channel's name and marker, every population's name.
std::vector<std::string> shownNames(const app::State& st) {
    std::vector<std::string> names;
    for (const auto& table : st.data.tables)
        for (const auto& channel : table.channels) {
            names.push_back(channel.name);
            names.push_back(channel.marker);
        }
    for (const auto& group : st.populations.groups) names.push_back(group.name);
    return names;
}
}  // namespace

std::string stateJson(Application& application) {
    auto& ws = application.workspace();
    const auto& canvas = application.canvas();
    const auto& camera = application.camera();
    const auto& ctx = application.context();
    const auto& st = ws.state();
    nlohmann::json pops = nlohmann::json::array();
    auto sizes = ws.populations().sizes();
    for (size_t i = 0; i < st.populations.groups.size(); ++i)
        pops.push_back({{"name", st.populations.groups[i].name}, {"size", sizes[i]}});
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : st.data.samples) samples.push_back(s.path);
    // What the Counts window shows: sample, population, cells.
    nlohmann::json counts = nlohmann::json::array();
    for (const auto& c : ws.populations().counts())
        counts.push_back({c.sample, c.population, c.cells});
    const char* modes[] = {"marker",     "sample", "label",      "density",
                           "population", "group",  "neighbours", "change"};
    nlohmann::json j = {{"events", st.data.events()},
                        {"samples", samples},
                        {"columns", st.data.columns},
                        {"landmarks", st.model.count()},
                        {"locked", st.model.count() - size_t(std::count(st.model.locked.begin(),
                                                                        st.model.locked.end(), 0))},
                        {"populations", pops},
                        // Characters of the channels' and populations' names the interface
                        // cannot draw (empty: none).
                        {"unshown_characters", unshownCharacters(shownNames(st))},
                        {"counts", counts},
                        {"colour_mode", modes[int(st.colour.mode)]},
                        {"errors", ws.errorCount()},
                        {"undo", ws.edits().undoStack().undoLabel()},
                        {"redo", ws.edits().undoStack().redoLabel()},
                        {"sweeps", ws.stats().sweeps},
                        {"incomplete_events", st.data.incompleteEvents},
                        {"backend", ws.backend().name}};
    // Window pixels of the canvas and of each landmark, so tests can look at the screenshot.
    auto o = canvas.origin();
    j["canvas"] = {o[0], o[1], camera.width(), camera.height()};
    j["camera"] = camera.state();  // the view: centre x, y and scale, as a session keeps it
    j["panels"] = ctx.openPanels;
    j["landmarks_shown"] = st.view.showLandmarks;
    // The cell the hover describes, and whether it is in the embedded population (drawn).
    const long hovered = canvas.hoveredCell();
    j["hovered_cell"] =
        hovered < 0
            ? nlohmann::json(nullptr)
            : nlohmann::json{{"index", hovered}, {"drawn", st.gating.contains(size_t(hovered))}};
    // The Compare window's latest comparison: what differs at FDR 0.05, and how long it took.
    const auto& comparison = ws.comparison().current();
    nlohmann::json called = nlohmann::json::array(), stateCalled = nlohmann::json::array();
    for (const auto& r : comparison.abundance)
        if (r.tested && r.pAdjusted < 0.05) called.push_back(r.population);
    for (const auto& r : comparison.state)
        if (r.tested && r.pAdjusted < 0.05) stateCalled.push_back({r.population, r.marker});
    const auto& chosen = ws.comparison().settings();
    j["compare_settings"] = {chosen.column, chosen.level,   chosen.reference, chosen.block,
                             chosen.method, chosen.samples, chosen.covariate};
    // The Stats window's scores of the picture (null while none is scored).
    const auto& quality = ws.quality();
    j["quality"] = quality.valid
                       ? nlohmann::json{{"trustworthiness", quality.scores.trustworthiness},
                                        {"knn_preservation", quality.scores.knnPreservation},
                                        {"points", quality.scores.points}}
                       : nlohmann::json(nullptr);
    // The Batches window's table: the last alignment's gaps, largest first.
    nlohmann::json gaps = nlohmann::json::array();
    for (const auto& g : ws.data().lastAlignmentGaps())
        gaps.push_back({{"channel", g.channel}, {"before", g.before}, {"after", g.after}});
    j["batch_gaps"] = gaps;
    // The Batches window's populations that lie in one batch, of the metadata's "batch" column
    // (the window's own choice when it was never changed).
    nlohmann::json bound = nlohmann::json::array();
    for (const auto& b : ws.populations().batchBound(st.metadata.batchColumn()))
        bound.push_back({{"population", b.population},
                         {"batch", b.batch},
                         {"in_batch", b.inBatch},
                         {"elsewhere", b.elsewhere}});
    j["batch_bound"] = bound;
    // The sepal-cli command the window shows for the same comparison.
    j["compare_command"] = ws.comparison().command();
    j["comparison"] = comparison.valid
                          ? nlohmann::json{{"contrast", comparison.contrastText},
                                           {"called", called},
                                           {"state_called", stateCalled},
                                           {"populations", comparison.abundance.size()},
                                           {"ms", comparison.milliseconds}}
                          : nlohmann::json(nullptr);
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
    for (const auto& c : st.gating.counts)
        gates.push_back({{"id", c.id},
                         {"path", c.path},
                         {"name", c.path.substr(c.path.rfind('/') + 1)},
                         {"events", c.events},
                         {"percent_of_parent", c.percentOfParent()}});
    j["gates"] = gates;
    j["embedded_population"] = st.gating.gates.population.empty() ? "" : st.gating.gates.path();
    j["gated"] = st.gating.count(st.data.events());
    const auto& plot = ctx.biaxialFrame;
    j["biaxial"] = plot.shown ? nlohmann::json{{"box", {plot.x, plot.y, plot.width, plot.height}},
                                               {"low", plot.low},
                                               {"high", plot.high},
                                               {"x", ctx.plots.empty() ? "" : ctx.plots.front().x},
                                               {"y", ctx.plots.empty() ? "" : ctx.plots.front().y}}
                              : nlohmann::json(nullptr);
    // The small multiples on the canvas, each panel's title and box in window pixels.
    nlohmann::json multiples = nlohmann::json::array();
    for (const auto& p : ui::smallMultiplePanels(st, camera.width(), camera.height()))
        multiples.push_back(
            {{"title", p.title}, {"box", {o[0] + p.x, o[1] + p.y, p.width, p.height}}});
    j["small_multiples"] = multiples;
    j["legend"] = nlohmann::json::array();
    for (const auto& e : ws.colourKey().legend) j["legend"].push_back(e.name);
    const auto& polish = ws.polish();
    j["polish"] = {{"running", polish.running()},
                   {"progress", polish.progress()},
                   {"shown", polish.shown() ? polish.shown()->label : ""}};
    j["crash_offer"] = application.recovery().offered();
    j["crash_dialog"] = application.recovery().dialogOpen();
    return j.dump();
}

}  // namespace sepal::gui
