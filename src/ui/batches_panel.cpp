#include "ui/batches_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <vector>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/pipeline/aligned_files.h"

namespace sepal::ui {
namespace {

/// "14.4%" or "0.05%": a share of a batch's cells, as a percentage.
std::string percent(double share) {
    char text[32];
    std::snprintf(text, sizeof text, share >= 0.01 ? "%.1f%%" : "%.2f%%", 100 * share);
    return text;
}

/// The populations that lie in one batch of `column` (what an alignment removes), in orange, or
/// that none does; nothing without populations.
void drawBatchBound(app::Workspace& ws, const std::string& column) {
    if (ws.state().populations.groups.empty()) return;
    const auto& bound = ws.populations().batchBound(column);
    if (bound.empty()) {
        ImGui::TextDisabled("No population lies in one batch.");
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.3f, 1.0f));
    ImGui::TextWrapped(
        "%zu population%s lie%s in one batch: each may be a batch's copy of a cell type, moved "
        "by a batch effect (align the batches, then make the populations again):",
        bound.size(), bound.size() == 1 ? "" : "s", bound.size() == 1 ? "s" : "");
    constexpr size_t kShown = 6;
    for (size_t i = 0; i < std::min(bound.size(), kShown); ++i)
        ImGui::TextWrapped("%s: %s of %s's cells, %s of the others'", bound[i].population.c_str(),
                           percent(bound[i].inBatch).c_str(), bound[i].batch.c_str(),
                           percent(bound[i].elsewhere).c_str());
    if (bound.size() > kShown) ImGui::TextWrapped("and %zu more", bound.size() - kShown);
    ImGui::PopStyleColor();
}

}  // namespace

BatchesPanel::BatchesPanel() {
    std::error_code ec;
    m_folder = (std::filesystem::current_path(ec) / "aligned").string();
}

void BatchesPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    const SampleMetadata& metadata = st.metadata;
    if (st.data.samples.size() < 2) {
        ImGui::TextDisabled("Open the samples of several batches to align them.");
        return;
    }
    if (metadata.columns.empty()) {
        ImGui::TextWrapped(
            "Each sample's batch comes from the samples' metadata: a CSV with a row per file "
            "and a batch column (Open > Open as sample metadata).");
        return;
    }
    // The batch column: the user's, else one called "batch"; never a guess, for aligning by the
    // conditions would remove what the study measures.
    if (std::find(metadata.columns.begin(), metadata.columns.end(), m_column) ==
        metadata.columns.end())
        m_column = metadata.batchColumn();
    std::vector<std::string> paths;
    for (const auto& s : st.data.samples) paths.push_back(s.path);
    ImGui::SetNextItemWidth(-90);
    if (ImGui::BeginCombo("Batch column", m_column.empty() ? "choose..." : m_column.c_str())) {
        for (const auto& c : metadata.columns)
            if (ImGui::Selectable(c.c_str(), c == m_column)) m_column = c;
        ImGui::EndCombo();
    }
    // Anchors: every sample, or those of one value of another column (type = control).
    const std::string shownAnchors = m_anchors.empty() ? "every sample" : m_anchors;
    ImGui::SetNextItemWidth(-90);
    if (ImGui::BeginCombo("Anchors", shownAnchors.c_str())) {
        if (ImGui::Selectable("every sample", m_anchors.empty())) m_anchors.clear();
        for (size_t c = 0; c < metadata.columns.size(); ++c) {
            if (metadata.columns[c] == m_column) continue;
            for (const auto& v : metadata.valuesOver(paths, c)) {
                if (v.empty()) continue;
                const std::string choice = metadata.columns[c] + "=" + v;
                if (ImGui::Selectable(choice.c_str(), choice == m_anchors)) m_anchors = choice;
            }
        }
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "The samples that teach the alignment: a control measured in every batch. Every "
            "sample suits batches that hold the same mix of samples.");
    // What the choice gives: each batch with its samples and anchors, or why it cannot be.
    std::string problem, warning;
    std::map<std::string, std::pair<int, int>> batches;  // batch -> samples, anchors
    try {
        if (m_column.empty())
            throw InputError("Choose the metadata column that names each sample's batch.");
        const BatchAssignment assignment = assignBatches(metadata, paths, m_column, m_anchors);
        for (size_t i = 0; i < paths.size(); ++i) {
            auto& counts = batches[assignment.batchOf[i]];
            ++counts.first;
            counts.second += assignment.anchor[i];
        }
        warning = confoundingWarning(confoundedColumns(metadata, paths, assignment, m_column));
    } catch (const std::exception& e) {
        problem = e.what();
    }
    for (const auto& [batch, counts] : batches)
        ImGui::TextDisabled("%s: %d sample%s, %d anchor%s", batch.c_str(), counts.first,
                            counts.first == 1 ? "" : "s", counts.second,
                            counts.second == 1 ? "" : "s");
    if (m_column.empty()) {
        ImGui::TextWrapped("%s", problem.c_str());
    } else if (!problem.empty() || !warning.empty()) {
        std::string text = problem.empty() ? warning : problem;
        text[0] = char(std::toupper(static_cast<unsigned char>(text[0])));
        ImGui::PushStyleColor(ImGuiCol_Text, problem.empty() ? ImVec4(1.0f, 0.8f, 0.3f, 1.0f)
                                                             : ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", text.c_str());
        ImGui::PopStyleColor();
    }
    if (problem.empty() && batches.size() < 2)
        ImGui::TextWrapped("Every sample is in batch %s: nothing to align.",
                           batches.begin()->first.c_str());
    if (problem.empty() && batches.size() >= 2) drawBatchBound(ws, m_column);
    ImGui::SetNextItemWidth(-90);
    if (ImGui::InputInt("Clusters", &m_clusters)) m_clusters = std::clamp(m_clusters, 1, 100);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "1: each marker of a batch carried by one map. More: the anchors' cells in that many "
            "clusters (by their type markers), each with maps of its own, as CytoNorm does: for "
            "a batch effect that differs between cell types (10 to 20 suit most panels).");
    ImGui::SetNextItemWidth(-90);
    ImGui::InputText("Folder", &m_folder);
    ImGui::BeginDisabled(!problem.empty() || batches.size() < 2 || ws.data().loading() != nullptr);
    if (ImGui::Button("Align batches"))
        ws.data().alignBatches(m_column, m_anchors, m_folder, size_t(m_clusters));
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(
            "Each marker of each batch is carried onto the batches' mean distribution by its "
            "quantiles, learnt from the anchors (as sepal-cli align). The aligned files and "
            "batch_gaps.csv are written to the folder and opened; the original files stay as "
            "they were.");
    // The last alignment's gaps, the markers that were furthest apart first.
    const std::vector<BatchGap> gaps = ws.data().lastAlignmentGaps();
    if (gaps.empty()) return;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped(
        "The last alignment's gap between batches (earth mover's distance, "
        "transformed units), batch_gaps.csv:");
    ImGui::PopStyleColor();
    const ImGuiTableFlags flags =
        ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV;
    const float height =
        ImGui::GetTextLineHeightWithSpacing() * float(std::min<size_t>(gaps.size(), 8) + 1) + 4;
    if (ImGui::BeginTable("gaps", 3, flags, ImVec2(0, height))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("marker", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("before", ImGuiTableColumnFlags_WidthFixed, 60);
        ImGui::TableSetupColumn("after", ImGuiTableColumnFlags_WidthFixed, 60);
        ImGui::TableHeadersRow();
        for (const BatchGap& g : gaps) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(g.channel.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", g.before);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", g.after);
        }
        ImGui::EndTable();
    }
}

}  // namespace sepal::ui
