#include "ui/main_menu.h"

#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ui/crash_recovery.h"

namespace sepal::ui {
void saveSession(UiContext& ctx) {
    if (ctx.sessionPath.empty()) {
        ctx.panelToOpen = "Export";
        return;
    }
    try {
        ctx.workspace.exports().saveSession(ctx.sessionPath, ctx.camera.state());
    } catch (const std::exception& e) {
        ctx.error(e.what());
    }
}

void drawMainMenu(UiContext& ctx, CrashRecovery& recovery, float contentScale) {
    auto& ws = ctx.workspace;
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open files...", "Ctrl+O")) ctx.panelToOpen = "Open";
        if (ImGui::MenuItem("Open demo data")) {
            const char* env = std::getenv("SEPAL_DATA_DIR");
            ws.data().openFiles(
                {(std::filesystem::path(env ? env : SEPAL_DATA_DIR_DEFAULT) / "demo.fcs")
                     .string()});
        }
        if (ImGui::MenuItem("Generated data (100k cells)"))
            ws.data().openFiles({"synthetic:100000"});
        recovery.drawMenu(ctx);
        ImGui::Separator();
        if (ImGui::MenuItem("Save session", "Ctrl+S")) saveSession(ctx);
        if (ImGui::MenuItem("Export...", "Ctrl+E")) ctx.panelToOpen = "Export";
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) ctx.quitRequested = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Edit")) {
        auto undo = ws.edits().undoStack().undoLabel(), redo = ws.edits().undoStack().redoLabel();
        if (ImGui::MenuItem(("Undo " + undo).c_str(), "Ctrl+Z", false, !undo.empty()))
            ws.edits().undo();
        if (ImGui::MenuItem(("Redo " + redo).c_str(), "Ctrl+Shift+Z", false, !redo.empty()))
            ws.edits().redo();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        if (ImGui::MenuItem("Fit to view", "F")) ctx.fitRequested = true;
        ImGui::EndMenu();
    }
    const auto& st = ws.state();
    // The cells embedded: those of the gates' population, of all when there is none.
    std::string cells = std::to_string(st.data.events()) + " cells";
    if (!st.gating.gates.population.empty())
        cells = std::to_string(st.gating.count(st.data.events())) + " of " + cells + " in " +
                st.gating.gates.path();
    const std::string line = cells + "  " + std::to_string(st.model.count()) + " landmarks  " +
                             ws.backend().name + "  " + std::to_string(int(ctx.fps + 0.5)) + " fps";
    ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize(line.c_str()).x -
                    16 * contentScale);
    ImGui::TextDisabled("%s", line.c_str());
    ImGui::EndMainMenuBar();
}

}  // namespace sepal::ui
