#include "ui/training_panel.h"

#include <imgui.h>

#include <algorithm>

namespace sepal::ui {

namespace {
// Slider edits fold into one undo step per drag: seal when the widget is released.
void sealOnRelease(UiContext& ctx) {
    if (ImGui::IsItemDeactivated()) ctx.workspace.seal();
}
}  // namespace

void TrainingPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    app::TrainingSettings t = ws.state().training;
    auto names = ws.trainerNames();
    {
        int current = int(std::find(names.begin(), names.end(), t.trainer) - names.begin());
        if (current >= int(names.size())) current = 0;
        ImGui::SetNextItemWidth(-110);
        if (ImGui::BeginCombo("Trainer", names[size_t(current)].c_str())) {
            for (const auto& n : names)
                if (ImGui::Selectable(n.c_str(), n == t.trainer))
                    t.trainer = n, ws.setTraining(t), ws.seal();
            ImGui::EndCombo();
        }
    }
    if (!ws.training()) {
        if (ImGui::Button("Run")) ws.startTraining();
    } else if (ImGui::Button("Pause")) {
        ws.pauseTraining();
    }
    ImGui::SameLine();
    if (ImGui::Button("Reset")) ws.resetModel();
    ImGui::SameLine();
    double p = ws.trainingProgress();
    ImGui::ProgressBar(p < 0 ? 0.0f : float(p), ImVec2(-1, 0), ws.training() ? "training" : "idle");

    ImGui::PushItemWidth(-110);
    if (ImGui::SliderFloat("Sigma", &t.sigma, 0.1f, 5.0f, "%.2f")) ws.setTraining(t, "sigma");
    sealOnRelease(ctx);
    if (ImGui::SliderFloat("Alpha", &t.alpha, 0.001f, 0.5f, "%.3f", ImGuiSliderFlags_Logarithmic))
        ws.setTraining(t, "alpha");
    sealOnRelease(ctx);
    if (ImGui::SliderInt("Epochs", &t.epochs, 1, 100)) ws.setTraining(t, "epochs");
    sealOnRelease(ctx);
    if (ImGui::SliderInt("Graph k", &t.graphK, 0, 10)) ws.setTraining(t, "graphk");
    sealOnRelease(ctx);
    const char* layouts[] = {"force", "tsne", "umap"};
    int li = int(std::find(std::begin(layouts), std::end(layouts), t.layout) - std::begin(layouts));
    if (ImGui::Combo("Layout", &li, layouts, 3))
        t.layout = layouts[li % 3], ws.setTraining(t), ws.seal();
    int seed = int(t.seed);
    if (ImGui::InputInt("Seed", &seed))
        t.seed = uint64_t(std::max(seed, 0)), ws.setTraining(t), ws.seal();

    ImGui::Separator();
    ImGui::TextDisabled("Projection (EmbedSOM)");
    EmbedParams e = ws.state().embed;
    int g = int(ws.state().model.count());
    if (ImGui::SliderInt("k (0 = auto)", &e.k, 0, std::max(4, std::min(g, 64)))) {
        if (e.k != 0) e.k = std::clamp(e.k, 4, std::max(4, g));
        ws.setEmbed(e, "k");
    }
    sealOnRelease(ctx);
    if (ImGui::SliderFloat("Smooth", &e.smooth, -3.0f, 3.0f, "%.2f")) ws.setEmbed(e, "smooth");
    sealOnRelease(ctx);
    if (ImGui::SliderFloat("Adjust", &e.adjust, 0.0f, 3.0f, "%.2f")) ws.setEmbed(e, "adjust");
    sealOnRelease(ctx);
    ImGui::PopItemWidth();
}

}  // namespace sepal::ui
