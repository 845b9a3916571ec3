#include "ui/main_menu.h"

#include <imgui.h>

#include <cstdlib>
#include <filesystem>

#include "ui/crash_recovery.h"

namespace sepal::ui {

void drawMainMenu(UiContext& ctx, CrashRecovery& recovery, float contentScale) {
    auto& ws = ctx.workspace;
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open demo data")) {
            const char* env = std::getenv("SEPAL_DATA_DIR");
            ws.data().openFiles(
                {(std::filesystem::path(env ? env : SEPAL_DATA_DIR_DEFAULT) / "demo.fcs")
                     .string()});
        }
        if (ImGui::MenuItem("Generated data (100k cells)"))
            ws.data().openFiles({"synthetic:100000"});
        recovery.drawMenu(ctx);
        if (!ctx.sessionPath.empty() && ImGui::MenuItem("Save session")) {
            try {
                ws.exports().saveSession(ctx.sessionPath, ctx.camera.state());
            } catch (const std::exception& e) {
                ctx.error(e.what());
            }
        }
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
    ImGui::SameLine(ImGui::GetWindowWidth() - 520 * contentScale);
    ImGui::TextDisabled("%zu cells  %zu landmarks  %s  %.0f fps", st.data.events(),
                        st.model.count(), ws.backend().name.c_str(), ctx.fps);
    ImGui::EndMainMenuBar();
}

}  // namespace sepal::ui
