#include "ui/compare_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <set>

#include "app/colouring.h"
#include "core/common/error.h"
#include "core/pipeline/sample_filter.h"
#include "core/raster/annotate.h"
#include "core/raster/box_plots.h"
#include "ui/fitted_text.h"

namespace sepal::ui {
namespace {

/// A column's distinct values over the open samples, in sorted order (R's factor levels).
std::vector<std::string> levelsOf(const app::State& st, size_t column) {
    std::vector<std::string> paths;
    for (const auto& sample : st.data.samples) paths.push_back(sample.path);
    std::set<std::string> levels;
    for (const auto& v : st.metadata.valuesOver(paths, column))
        if (!v.empty()) levels.insert(v);
    return {levels.begin(), levels.end()};
}

/// A combo over `items` (with "none" first when `none` names it); true when changed.
bool chooser(const char* label, std::string& value, const std::vector<std::string>& items,
             const char* none = nullptr) {
    bool changed = false;
    const std::string shown = value.empty() && none ? none : value;
    if (ImGui::BeginCombo(label, shown.c_str())) {
        if (none && ImGui::Selectable(none, value.empty())) value.clear(), changed = true;
        for (const auto& item : items)
            if (ImGui::Selectable(item.c_str(), item == value)) value = item, changed = true;
        ImGui::EndCombo();
    }
    return changed;
}

/// "only type = sample", "not type = reference": how the window says a samples filter (short
/// enough for the combo beside its label).
std::string filterLabel(const SampleFilter& f) {
    if (f.all()) return "all";
    std::string values;
    for (const auto& v : f.values) values += (values.empty() ? "" : ", ") + v;
    return (f.exclude ? "not " : "only ") + f.column + " = " + values;
}

/// The "samples" combo: all, or only / not one value of a column other than the conditions'
/// (those of 2 to 12 values among the open samples); true when changed.
bool chooseSamples(const app::State& st, app::ComparisonSettings& s) {
    SampleFilter current;
    try {
        current = parseSampleFilter(s.samples, "samples");
    } catch (const InputError&) {
        // Shown as typed; the comparison says what is wrong with it.
    }
    bool changed = false;
    const std::string shown = s.samples.empty() ? "all" : filterLabel(current);
    if (!ImGui::BeginCombo("samples", shown.c_str())) return false;
    if (ImGui::Selectable("all", s.samples.empty())) s.samples.clear(), changed = true;
    const SampleMetadata& m = st.metadata;
    for (size_t c = 0; c < m.columns.size(); ++c) {
        const auto levels = levelsOf(st, c);
        if (m.columns[c] == s.column || levels.size() < 2 || levels.size() > 12) continue;
        for (const bool exclude : {false, true})
            for (const auto& level : levels) {
                const SampleFilter f{m.columns[c], {level}, exclude};
                if (ImGui::Selectable(filterLabel(f).c_str(), f == current && !current.all()))
                    s.samples = f.text(), changed = true;
            }
    }
    ImGui::EndCombo();
    return changed;
}

/// "0.0021", "7.5e-9" (the exponent without its zeros and plus: a side bar's narrow column
/// shows it whole), or "< 1e-300" below the smallest double.
std::string pText(double p) {
    if (!std::isfinite(p)) return "-";
    if (!(p > 0)) return "< 1e-300";
    char text[32];
    std::snprintf(text, sizeof text, "%#.2g", p);  // two digits always: "0.30" beside "0.12"
    std::string t = text;
    if (const size_t e = t.find('e'); e != std::string::npos) {
        const int exponent = std::atoi(t.c_str() + e + 1);
        t = t.substr(0, e) + "e" + std::to_string(exponent);
    }
    return t;
}

/// The colour of each of `groups` among the samples' `groupOf`: the palette's colour of its
/// place among their levels in sorted order, as the canvas (colour by sample group) and the
/// exported box plots give it, whichever of the two is the reference.
std::vector<ImU32> levelColours(const std::vector<std::string>& groupOf,
                                const std::vector<std::string>& groups) {
    const std::set<std::string> levels(groupOf.begin(), groupOf.end());
    std::vector<ImU32> colours;
    for (const std::string& level : groups) {
        const auto rgb =
            app::paletteColour(size_t(std::distance(levels.begin(), levels.lower_bound(level))));
        colours.push_back(IM_COL32(rgb[0], rgb[1], rgb[2], 255));
    }
    return colours;
}

/// The width of the first column (the population's name) of a table `width` wide that leaves the
/// columns after it (`after`) in view beside the vertical scroll bar: at least 20 % of the width,
/// where the numbers then scroll in sideways.
float namesWidth(float width, std::initializer_list<float> after) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float cell = 2 * style.CellPadding.x + 1;  // padding and the border between columns
    float numbers = style.ScrollbarSize + cell;
    for (float w : after) numbers += w + cell;
    return std::max(0.2f * width, width - numbers);
}

/// The widest of `textOf` over `rows` and of `header`, in pixels: a column as wide as what it
/// shows.
template <class Rows, class TextOf>
float widestOf(const Rows& rows, const char* header, TextOf textOf) {
    float w = ImGui::CalcTextSize(header).x;
    for (const auto& r : rows) w = std::max(w, ImGui::CalcTextSize(textOf(r).c_str()).x);
    return w;
}

/// An adjusted p with its star at FDR 0.05.
template <class Row>
std::string adjustedText(const Row& r) {
    return pText(r.pAdjusted) + (r.tested && r.pAdjusted < 0.05 ? "*" : "");
}

}  // namespace

ComparePanel::ComparePanel() {
    std::error_code ec;
    m_folder = (std::filesystem::current_path(ec) / "stats").string();
}

bool ComparePanel::drawChoice(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const SampleMetadata& m = ws.state().metadata;
    app::ComparisonSettings s = ws.comparison().settings();
    bool changed = false;
    ImGui::PushItemWidth(-90);
    if (chooser("Conditions", s.column, m.columns)) {
        // The levels of the new column: the first the reference, as R orders a factor.
        const auto it = std::find(m.columns.begin(), m.columns.end(), s.column);
        const auto levels = levelsOf(ws.state(), size_t(it - m.columns.begin()));
        s.reference = levels.empty() ? "" : levels.front();
        s.level = levels.size() > 1 ? levels[1] : "";
        if (s.block == s.column) s.block.clear();
        if (s.covariate == s.column) s.covariate.clear();
        changed = true;
    }
    const auto column = std::find(m.columns.begin(), m.columns.end(), s.column);
    if (column != m.columns.end()) {
        const auto levels = levelsOf(ws.state(), size_t(column - m.columns.begin()));
        changed |= chooser("compare", s.level, levels);
        changed |= chooser("against", s.reference, levels);
        std::vector<std::string> others;
        for (const auto& c : m.columns)
            if (c != s.column) others.push_back(c);
        changed |= chooser("paired by", s.block, others, "(unpaired)");
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "A column that pairs the samples (the patient): abundance is compared within "
                "each, and the state markers' medians share its correlation");
        std::vector<std::string> adjustable;
        for (const auto& c : others)
            if (c != s.block) adjustable.push_back(c);
        if (!s.covariate.empty() && s.covariate == s.block) s.covariate.clear(), changed = true;
        changed |= chooser("adjusted for", s.covariate, adjustable, "(nothing)");
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "A further column the design adjusts for: the batch, sex or age (numbers are a "
                "covariate). It must not be nested in the pairing: each patient in one batch "
                "leaves nothing to adjust.");
        changed |= chooseSamples(ws.state(), s);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "The samples compared: all, or those of one value of another column (leave the "
                "reference samples of a batched study out: not type = reference)");
        changed |= chooser("method", s.method, {"edgeR", "GLMM"});
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "Differential abundance by edgeR (a negative binomial GLM; the pairing a factor "
                "of the design) or by a binomial GLMM (a random intercept per sample and per "
                "pair)");
    }
    ImGui::PopItemWidth();
    if (changed) ws.comparison().choose(s);
    return changed;
}

void ComparePanel::drawAbundance(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const app::Comparison& c = ws.comparison().current();
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX;
    const float rowHeight = ImGui::GetTextLineHeightWithSpacing();
    const float height = std::min(rowHeight * float(c.abundance.size() + 1) + 8, rowHeight * 12);
    const float width = ImGui::GetContentRegionAvail().x;  // inside the table, a scrolled width
    if (!ImGui::BeginTable("abundance", 4, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    // The numbers' columns as wide as their widest text ("7.5e-9*"); the names take what
    // leaves the fold change and the adjusted p in view (a cut p would read as another number),
    // and the raw p scrolls in sideways.
    const float pWidth = widestOf(c.abundance, "adj. p", adjustedText<app::AbundanceRow>);
    const float changeWidth =
        std::max({ImGui::CalcTextSize("+0.00").x, ImGui::CalcTextSize("logFC").x,
                  ImGui::CalcTextSize("untested").x});
    const float nameWidth = namesWidth(width, {changeWidth, pWidth});
    ImGui::TableSetupColumn("population", ImGuiTableColumnFlags_WidthFixed, nameWidth);
    ImGui::TableSetupColumn("logFC", ImGuiTableColumnFlags_WidthFixed, changeWidth);
    // The adjusted p first: what decides; the raw p scrolls in beside.
    ImGui::TableSetupColumn("adj. p", ImGuiTableColumnFlags_WidthFixed, pWidth);
    ImGui::TableSetupColumn("p", ImGuiTableColumnFlags_WidthFixed, pWidth);
    ImGui::TableHeadersRow();
    const float extent = [&] {
        float e = 0;
        for (const auto& r : c.abundance)
            if (r.tested) e = std::max(e, float(std::fabs(r.logFC)));
        return e > 0 ? e : 1.0f;
    }();
    std::vector<std::string> populations;
    for (const auto& r : c.abundance) populations.push_back(r.population);
    const std::vector<std::string> fitted = fittedNames(populations, nameWidth);
    for (size_t row = 0; row < c.abundance.size(); ++row) {
        const auto& r = c.abundance[row];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        // A click shows the population on the canvas (the others greyed) and its box plot.
        const bool selected = r.population == ws.state().colour.highlight;
        if (ImGui::Selectable(fitted[row].c_str(), selected, ImGuiSelectableFlags_SpanAllColumns)) {
            app::ColourSettings colour = ws.state().colour;
            if (colour.mode != app::ColourMode::Change) colour.mode = app::ColourMode::Population;
            colour.highlight = selected ? std::string() : r.population;
            ws.edits().setColour(colour);
            ws.edits().seal();
            ctx.brushName = r.population;
            ctx.brushChosen = true;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.population.c_str());  // when cut
        ImGui::TableNextColumn();
        if (r.tested) {
            // The fold change in the colours the canvas uses for it; on the selected row half way
            // to white, where the map's blue would vanish on the selection's.
            const auto rgb = app::colourMap("coolwarm", 0.5f + 0.5f * float(r.logFC) / extent);
            const float toWhite = selected ? 0.5f : 0.0f;
            auto channel = [&](uint8_t v) { return v / 255.f + toWhite * (1 - v / 255.f); };
            ImGui::TextColored(ImVec4(channel(rgb[0]), channel(rgb[1]), channel(rgb[2]), 1),
                               "%+.2f", r.logFC);
        } else {
            ImGui::TextDisabled("untested");
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(adjustedText(r).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(pText(r.pValue).c_str());
    }
    ImGui::EndTable();
}

void ComparePanel::drawBoxPlot(UiContext& ctx) {
    const app::Comparison& c = ctx.workspace.comparison().current();
    const std::string& selected = ctx.workspace.state().colour.highlight;
    size_t row = 0;
    while (row < c.abundance.size() && c.abundance[row].population != selected) ++row;
    if (row == c.abundance.size()) {
        ImGui::TextDisabled("Click a population for its box plot.");
        return;
    }
    const std::vector<double>& percent = c.percent[row];
    const std::vector<std::string> groups{c.settings.reference, c.settings.level};
    const std::vector<ImU32> colours = levelColours(c.groupOf, groups);
    ImGui::Text("%s: %% of each sample's cells", selected.c_str());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x, height = 150;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    double lo = INFINITY, hi = -INFINITY;
    for (size_t s = 0; s < percent.size(); ++s)
        if (std::isfinite(percent[s]) &&
            std::find(groups.begin(), groups.end(), c.groupOf[s]) != groups.end())
            lo = std::min(lo, percent[s]), hi = std::max(hi, percent[s]);
    if (!(hi >= lo)) return;
    // Round ticks enclosing the values, as the exported abundance.png has them (percentages
    // start at 0 or above).
    std::vector<double> ticks = raster::niceTicks(lo, hi, 4);
    if (ticks.empty()) return;
    if (ticks.front() < 0) ticks = raster::niceTicks(0, std::max(hi, 1.0), 4);
    lo = ticks.front(), hi = ticks.back();
    const float left = origin.x + 50, right = origin.x + width - 10;
    const float top = origin.y + 6, bottom = origin.y + height - 20;
    const auto yOf = [&](double v) {
        return float(bottom - (v - lo) / (hi - lo) * (bottom - top));
    };
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text), faint = IM_COL32(140, 140, 140, 160);
    draw->AddLine(ImVec2(left, top), ImVec2(left, bottom), faint);
    draw->AddLine(ImVec2(left, bottom), ImVec2(right, bottom), faint);
    for (const double tick : ticks)
        draw->AddText(ImVec2(origin.x, yOf(tick) - 7), ink, raster::formatTick(tick).c_str());
    std::vector<float> xOf(percent.size(), -1);
    for (size_t g = 0; g < groups.size(); ++g) {
        const float centre = left + (right - left) * (float(g) + 0.5f) / float(groups.size());
        std::vector<double> values;
        std::vector<size_t> members;
        for (size_t s = 0; s < percent.size(); ++s)
            if (c.groupOf[s] == groups[g]) values.push_back(percent[s]), members.push_back(s);
        const raster::BoxStats box = raster::boxStats(values);
        const ImU32 colour = colours[g];
        const float half = std::min(40.0f, (right - left) / float(groups.size()) / 4);
        if (box.n > 0) {
            draw->AddRect(ImVec2(centre - half, yOf(box.q3)), ImVec2(centre + half, yOf(box.q1)),
                          colour, 0, 0, 1.5f);
            draw->AddLine(ImVec2(centre - half, yOf(box.median)),
                          ImVec2(centre + half, yOf(box.median)), colour, 3);
            draw->AddLine(ImVec2(centre, yOf(box.q3)), ImVec2(centre, yOf(box.highWhisker)),
                          colour);
            draw->AddLine(ImVec2(centre, yOf(box.q1)), ImVec2(centre, yOf(box.lowWhisker)), colour);
        }
        for (size_t k = 0; k < members.size(); ++k)
            xOf[members[k]] =
                centre +
                half * 0.8f *
                    (members.size() > 1 ? float(k) / float(members.size() - 1) * 2 - 1 : 0);
        const float labelWidth = ImGui::CalcTextSize(groups[g].c_str()).x;
        draw->AddText(ImVec2(centre - labelWidth / 2, bottom + 3), ink, groups[g].c_str());
    }
    // Paired samples joined, then every sample as a dot.
    for (size_t a = 0; a < percent.size(); ++a)
        for (size_t b = a + 1; b < percent.size(); ++b)
            if (!c.pairOf[a].empty() && c.pairOf[a] == c.pairOf[b] && xOf[a] >= 0 && xOf[b] >= 0 &&
                std::isfinite(percent[a]) && std::isfinite(percent[b]))
                draw->AddLine(ImVec2(xOf[a], yOf(percent[a])), ImVec2(xOf[b], yOf(percent[b])),
                              faint);
    for (size_t s = 0; s < percent.size(); ++s)
        if (xOf[s] >= 0 && std::isfinite(percent[s]))
            draw->AddCircleFilled(ImVec2(xOf[s], yOf(percent[s])), 4,
                                  colours[c.groupOf[s] == groups[0] ? 0 : 1]);
    ImGui::Dummy(ImVec2(width, height));
}

void ComparePanel::drawState(UiContext& ctx) {
    const app::Comparison& c = ctx.workspace.comparison().current();
    if (c.state.empty()) {
        ImGui::TextDisabled("No state markers to test (Data window: the class column).");
        return;
    }
    const ImGuiTableFlags flags =
        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY;
    const float rowHeight = ImGui::GetTextLineHeightWithSpacing();
    const float width = ImGui::GetContentRegionAvail().x;  // inside the table, a scrolled width
    if (!ImGui::BeginTable("state", 3, flags | ImGuiTableFlags_ScrollX, ImVec2(0, rowHeight * 14)))
        return;
    ImGui::TableSetupScrollFreeze(1, 1);
    // The population with its marker below it, so that the numbers stay whole in a side bar's
    // width (four columns cut the adjusted p); names cut (fittedText) are whole on hover.
    const float changeWidth =
        std::max({ImGui::CalcTextSize("+0.00").x, ImGui::CalcTextSize("change").x,
                  ImGui::CalcTextSize("untested").x});
    const float pWidth = widestOf(c.state, "adj. p", adjustedText<app::StateRow>);
    const float nameWidth = namesWidth(width, {changeWidth, pWidth});
    ImGui::TableSetupColumn("population", ImGuiTableColumnFlags_WidthFixed, nameWidth);
    ImGui::TableSetupColumn("change", ImGuiTableColumnFlags_WidthFixed, changeWidth);
    ImGui::TableSetupColumn("adj. p", ImGuiTableColumnFlags_WidthFixed, pWidth);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(int(c.state.size()));
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const app::StateRow& r = c.state[size_t(i)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(fittedText(r.population, nameWidth).c_str());
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.population.c_str());
            ImGui::TextDisabled("%s", fittedText(r.marker, nameWidth).c_str());
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.marker.c_str());
            ImGui::TableNextColumn();
            if (r.tested)
                ImGui::Text("%+.2f", r.logFC);
            else
                ImGui::TextDisabled("untested");
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(adjustedText(r).c_str());
        }
    ImGui::EndTable();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("change: the medians' difference (transformed units)");
    ImGui::PopStyleColor();
}

void ComparePanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    if (!app::ComparisonService::available()) {
        ImGui::TextWrapped("This build has no statistics (Eigen and Boost.Math were missing).");
        return;
    }
    if (st.metadata.columns.empty()) {
        ImGui::TextWrapped(
            "Open a sample metadata CSV (Open window): a row per sample naming its file, then "
            "columns such as condition and patient.");
        return;
    }
    drawChoice(ctx);
    ws.comparison().want();  // the window is open: keep the numbers current
    if (st.populations.groups.empty()) {
        ImGui::TextWrapped("No populations yet: Populations > From landmarks, or the lasso.");
        return;
    }
    auto& comparison = ws.comparison();
    if (!comparison.error().empty()) {
        // Wrapped: the side bar is narrower than most messages.
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
        ImGui::TextWrapped("%s", comparison.error().c_str());
        ImGui::PopStyleColor();
    }
    const app::Comparison& c = comparison.current();
    if (!c.valid) {
        ImGui::TextDisabled(comparison.computing() ? "Comparing..." : "Choose the conditions.");
        return;
    }
    size_t called = 0, stateCalled = 0;
    for (const auto& r : c.abundance) called += r.tested && r.pAdjusted < 0.05;
    for (const auto& r : c.state) stateCalled += r.tested && r.pAdjusted < 0.05;
    // The filter as the window's list says it; the comparison was made, so it parses.
    const std::string chosen =
        c.settings.samples.empty()
            ? ""
            : " (" + filterLabel(parseSampleFilter(c.settings.samples, "samples")) + ")";
    ImGui::TextWrapped(
        "%s over %zu samples%s: %zu of %zu populations differ, %zu state changes "
        "(FDR 0.05). %.0f ms%s",
        c.contrastText.c_str(), c.samples.size(), chosen.c_str(), called, c.abundance.size(),
        stateCalled, c.milliseconds, comparison.computing() ? ", updating" : "");
    if (ImGui::BeginTabBar("compare")) {
        if (ImGui::BeginTabItem("Abundance")) {
            drawAbundance(ctx);
            drawBoxPlot(ctx);
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem("State")) {
            drawState(ctx);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    if (ImGui::Button("Colour by change")) {
        app::ColourSettings colour = st.colour;
        colour.mode = app::ColourMode::Change;
        ws.edits().setColour(colour);
        ws.edits().seal();
    }
    ImGui::SameLine();
    if (ImGui::Button("Export")) {
        try {
            const auto written = comparison.exportTables(m_folder);
            ws.log(app::LogEntry::Info, "statistics written to " + m_folder + " (" +
                                            std::to_string(written.size()) + " files)");
        } catch (const std::exception& e) {
            ctx.error(std::string("statistics export failed: ") + e.what());
        }
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1);
    ImGui::InputText("##folder", &m_folder);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "da.csv, ds.csv, design.csv, abundance.png and state.png; the same as\n%s",
            comparison.command().c_str());
}

}  // namespace sepal::ui
