#include "ui/stats_panel.h"

#include <imgui.h>

namespace sepal::ui {

void StatsPanel::draw(UiContext& ctx) {
    const auto& ws = ctx.workspace;
    const auto& s = ws.stats();
    ImGui::Text("%.1f fps (%.1f ms a frame)", ctx.fps, ctx.frameMs);
    ImGui::Text("%zu points, %zu landmarks", ws.state().data.events(), ws.state().model.count());
    if (const size_t gaps = ws.state().data.incompleteEvents; gaps > 0) {
        ImGui::TextColored(ImVec4(0.95f, 0.75f, 0.35f, 1), "%zu with missing values", gaps);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "Events with NA, NaN or infinity in a used channel: left out of training and "
                "placed at their neighbours.");
    }
    ImGui::Text("Projection %.1f ms this frame", s.projectMs);
    ImGui::Text("Full sweep %.0f ms of work", s.fullSweepMs);
    ImGui::ProgressBar(float(s.sweepProgress), ImVec2(-1, 0),
                       s.sweepProgress >= 1 ? "settled" : "sweeping");
    if (!s.cacheRefusal.empty()) {
        // Drags then cost a whole sweep: the user should know why the picture lags.
        ImGui::TextColored(ImVec4(0.95f, 0.75f, 0.35f, 1), "Neighbour cache off");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.cacheRefusal.c_str());
    } else if (s.cacheBytes > 0) {
        ImGui::Text("Neighbour cache %.0f MB", double(s.cacheBytes) / 1e6);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "Each cell's nearest landmarks, kept until training moves the landmarks: a drag "
                "re-projects only the cells that use the dragged landmark.");
    }
    ImGui::Text("Training %.1f ms this frame", s.trainMs);
    if (s.trainCells > 0) {
        if (s.trainEveryCell)
            ImGui::Text("training over every cell on the GPU (%zu cells)", s.trainCells);
        else
            ImGui::Text("training on a subsample of %zu cells", s.trainCells);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "k-means and the batch SOM step over every cell inside the gates where the GPU "
                "keeps them; other trainers, and the CPU, refine on a fixed random subsample.");
    }
    // Whether the last edit kept or tore the neighbourhoods.
    const auto& q = ws.quality();
    if (q.valid) {
        ImGui::Text("Trustworthiness %.3f, k-NN kept %.2f%s", q.scores.trustworthiness,
                    q.scores.knnPreservation, q.scoring ? " (scoring...)" : "");
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "Of %zu evenly spaced cells (k = 10): 1 = no false neighbours in the picture; "
                "the share of each cell's 10 data-space neighbours kept in 2D. "
                "Scored again when the picture settles after an edit.\n"
                "The same figures from an exported CSV: sepal-cli score FILES --embedding "
                "EXPORT.csv --sample %zu --even",
                q.scores.points, q.scores.points);
    } else if (q.scoring) {
        ImGui::TextDisabled("Trustworthiness: scoring...");
    }
    ImGui::Text("Backend: %s", ws.backend().name.c_str());
    ImGui::TextWrapped("Why: %s", ws.backend().reason.c_str());
    if (!ctx.gpuKernel.empty()) ImGui::Text("CUDA kernel: %s", ctx.gpuKernel.c_str());
    ImGui::Text("GPU memory: %s", ctx.gpuMemory.c_str());
    if (!ctx.pointPainter.empty()) ImGui::Text("Points drawn by: %s", ctx.pointPainter.c_str());
    if (!ctx.pointDrawerReason.empty() && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", ctx.pointDrawerReason.c_str());
}

}  // namespace sepal::ui
