#include "ui/training_panel.h"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/recipes.h"
#include "core/pipeline/landmark_spec.h"
#include "ui/polish_section.h"

namespace sepal::ui {

namespace {
// Slider edits fold into one undo step per drag: seal when the widget is released.
void sealOnRelease(UiContext& ctx) {
    if (ImGui::IsItemDeactivated()) ctx.workspace.edits().seal();
}

// A supervised layout: what to pull together (nothing, the populations, a label column) and how
// strongly.
void drawSupervision(UiContext& ctx, app::TrainingSettings& t) {
    auto& ws = ctx.workspace;
    std::vector<std::string> choices = {""};
    if (!ws.state().populations.groups.empty()) choices.push_back(app::kSupervisePopulations);
    for (const auto& name : app::labelColumnNames(ws.state().data)) choices.push_back(name);
    const auto shown = [](const std::string& c) { return c.empty() ? std::string("nothing") : c; };
    if (ImGui::BeginCombo("Pull together", shown(t.supervise).c_str())) {
        for (const auto& c : choices)
            if (ImGui::Selectable(shown(c).c_str(), c == t.supervise))
                t.supervise = c, ws.training().setSettings(t), ws.edits().seal();
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "A supervised layout: the t-SNE of the landmarks pulls the landmarks of each "
            "population (or label) together, so that known groups lie apart (embed --supervise)");
    if (t.supervise.empty()) return;
    if (ImGui::SliderFloat("Strength", &t.supervisionStrength, 0.5f, 10.0f, "%.1f"))
        ws.training().setSettings(t, "supervision strength");
    sealOnRelease(ctx);
}

// The recipe: which one, its parameters, Train/Cancel with progress.
void drawRecipe(UiContext& ctx, app::TrainingSettings& t) {
    auto& ws = ctx.workspace;
    const auto& list = app::recipes();
    const app::Recipe* current = app::findRecipe(t.recipe);
    if (!current) current = &list.front();
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##recipe", current->title.c_str())) {
        for (const auto& r : list)
            if (ImGui::Selectable(r.title.c_str(), &r == current))
                t.recipe = r.name, ws.training().setSettings(t), ws.edits().seal();
        ImGui::EndCombo();
    }
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", current->description.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PushItemWidth(-110);
    if (app::recipeUsesGrid(t)) {
        if (ImGui::SliderInt("Grid rows", &t.gridRows, 2, 64)) ws.training().setSettings(t, "rows");
        sealOnRelease(ctx);
        if (ImGui::SliderInt("Grid columns", &t.gridCols, 2, 64))
            ws.training().setSettings(t, "cols");
        sealOnRelease(ctx);
    } else if (current->trainsNewModel) {
        // Automatic: as many as the cells inside the gates call for, as sepal-cli's kmeans:auto.
        bool automatic = t.landmarks == 0;
        if (ImGui::Checkbox("Auto##landmarks", &automatic)) {
            const auto& st = ws.state();
            t.landmarks = automatic ? 0 : int(landmarksForCells(st.gating.count(st.data.events())));
            ws.training().setSettings(t);
            ws.edits().seal();
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("One landmark for every 20 cells, 64 to 512");
        ImGui::SameLine();
        if (automatic) {
            const auto& st = ws.state();
            int shown = int(landmarksForCells(st.gating.count(st.data.events())));
            ImGui::BeginDisabled();
            ImGui::SliderInt("Landmarks", &shown, 16, 4096, "%d");
            ImGui::EndDisabled();
        } else {
            if (ImGui::SliderInt("Landmarks", &t.landmarks, 16, 4096, "%d",
                                 ImGuiSliderFlags_Logarithmic))
                ws.training().setSettings(t, "landmarks");
            sealOnRelease(ctx);
        }
    }
    if (current->trainsNewModel) {
        // The sample is at most the cells there are (inside the gates): say so, not the cap.
        const auto& st = ws.state();
        const size_t available = st.gating.count(st.data.events());
        const std::string shown = available > 0 && available < size_t(t.trainSample)
                                      ? "all " + std::to_string(available) + " cells"
                                      : "%d cells";
        // Dragged, not a slider: a slider's handle covered the number it sets.
        if (ImGui::DragInt("Trained on", &t.trainSample, 100.0f, 1000, 200000, shown.c_str(),
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
            ws.training().setSettings(t, "sample");
        sealOnRelease(ctx);
    }
    if (current->trainsNewModel && ws.state().data.samples.size() > 1) {
        if (ImGui::Checkbox("Balanced samples", &t.balanced))
            ws.training().setSettings(t), ws.edits().seal();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "Train on the same number of cells from each sample, so that a "
                "large sample does not outweigh the others (embed --balanced)");
    }
    if (app::supervisable(t)) drawSupervision(ctx, t);
    int seed = int(t.seed);
    if (ImGui::InputInt("Seed", &seed))
        t.seed = uint64_t(std::max(seed, 0)), ws.training().setSettings(t), ws.edits().seal();
    ImGui::PopItemWidth();
    if (const auto* task = ws.training().recipeRunning()) {
        if (ImGui::Button("Cancel")) ws.training().cancelRecipe();
        ImGui::SameLine();
        const std::string label = task->stage() + " " + task->title();
        ImGui::ProgressBar(float(task->progress()), ImVec2(-1, 0), label.c_str());
    } else if (ImGui::Button("Train", ImVec2(-1, 0))) {
        ws.training().runRecipe();
    }
    if (ws.training().untrained() && !ws.training().recipeRunning() && ws.state().data.events() > 0)
        ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.3f, 1.0f), "The landmarks are not trained yet.");
}

// Refining the current landmarks step by step (the picture follows every step).
void drawRefine(UiContext& ctx, app::TrainingSettings& t) {
    auto& ws = ctx.workspace;
    auto names = ctx.workspace.training().trainerNames();
    int current = int(std::find(names.begin(), names.end(), t.trainer) - names.begin());
    if (current >= int(names.size())) current = 0;
    ImGui::SetNextItemWidth(-110);
    if (ImGui::BeginCombo("Trainer", names[size_t(current)].c_str())) {
        for (const auto& n : names)
            if (ImGui::Selectable(n.c_str(), n == t.trainer))
                t.trainer = n, ws.training().setSettings(t), ws.edits().seal();
        ImGui::EndCombo();
    }
    if (!ws.training().running()) {
        if (ImGui::Button("Run")) ws.training().start();
    } else if (ImGui::Button("Pause")) {
        ws.training().pause();
    }
    ImGui::SameLine();
    if (ImGui::Button("Reset")) ws.edits().resetModel();
    ImGui::SameLine();
    double p = ws.training().progress();
    ImGui::ProgressBar(p < 0 ? 0.0f : float(p), ImVec2(-1, 0),
                       ws.training().running() ? "training" : "idle");
    ImGui::PushItemWidth(-110);
    if (ImGui::SliderFloat("Sigma", &t.sigma, 0.1f, 5.0f, "%.2f"))
        ws.training().setSettings(t, "sigma");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "The SOM's neighbourhood radius at the start, in map spacings (the usual distance "
            "between neighbouring landmarks on the map): 1.5 reaches the next landmark or two "
            "on a grid and on a free layout alike");
    sealOnRelease(ctx);
    if (ImGui::SliderFloat("Alpha", &t.alpha, 0.001f, 0.5f, "%.3f", ImGuiSliderFlags_Logarithmic))
        ws.training().setSettings(t, "alpha");
    sealOnRelease(ctx);
    if (ImGui::SliderInt("Epochs", &t.epochs, 1, 100)) ws.training().setSettings(t, "epochs");
    sealOnRelease(ctx);
    if (ImGui::SliderInt("Graph k", &t.graphK, 0, 10)) ws.training().setSettings(t, "graphk");
    sealOnRelease(ctx);
    ImGui::PopItemWidth();
}
}  // namespace

void TrainingPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    app::TrainingSettings t = ws.state().training;
    drawRecipe(ctx, t);
    if (ImGui::TreeNode("Refine step by step")) {
        drawRefine(ctx, t);
        ImGui::TreePop();
    }

    ImGui::Separator();
    ImGui::TextDisabled("Projection (EmbedSOM)");
    ImGui::PushItemWidth(-110);
    EmbedParams e = ws.state().embed;
    int g = int(ws.state().model.count());
    if (ImGui::SliderInt("k (0 = auto)", &e.k, 0, std::max(4, std::min(g, 64)))) {
        if (e.k != 0) e.k = std::clamp(e.k, 4, std::max(4, g));
        ws.edits().setEmbed(e, "k");
    }
    sealOnRelease(ctx);
    if (ImGui::SliderFloat("Smooth", &e.smooth, -3.0f, 3.0f, "%.2f"))
        ws.edits().setEmbed(e, "smooth");
    sealOnRelease(ctx);
    if (ImGui::SliderFloat("Adjust", &e.adjust, 0.0f, 3.0f, "%.2f"))
        ws.edits().setEmbed(e, "adjust");
    sealOnRelease(ctx);
    ImGui::PopItemWidth();
    drawPolishSection(ctx);
}

}  // namespace sepal::ui
