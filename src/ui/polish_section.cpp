#include "ui/polish_section.h"

#include <imgui.h>

#include <algorithm>
#include <string>

namespace sepal::ui {

namespace {
const ImVec4 kPolishNoteColour(1.0f, 0.75f, 0.3f, 1.0f);

const char* kernelTitle(PolishKernel kernel) {
    return kernel == PolishKernel::StudentT ? "t-SNE-like" : "UMAP-like";
}
}  // namespace

void drawPolishSection(UiContext& ctx) {
    auto& ws = ctx.workspace;
    app::PolishChoice& c = ctx.polish;
    ImGui::Separator();
    ImGui::TextDisabled("Polish (every cell on its data-space neighbours)");
    ImGui::PushItemWidth(-110);
    if (ImGui::BeginCombo("Polish", kernelTitle(c.kernel))) {
        for (PolishKernel k : {PolishKernel::Umap, PolishKernel::StudentT})
            if (ImGui::Selectable(kernelTitle(k), k == c.kernel) && k != c.kernel)
                c.kernel = k, c.epochs = app::defaultPolishEpochs(k);
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "UMAP-like: a few epochs that tighten EmbedSOM's picture and keep its spacing.\n"
            "t-SNE-like: t-SNE's gradient from EmbedSOM's picture; slower, and the most "
            "neighbourhoods kept (docs/QUALITY.md).\n"
            "The same as sepal-cli embed --polish N [--polish-kernel tsne].");
    const bool studentT = c.kernel == PolishKernel::StudentT;
    int epochs = int(c.epochs);
    if (ImGui::SliderInt(studentT ? "Iterations" : "Epochs", &epochs, 1, studentT ? 1000 : 200,
                         "%d", ImGuiSliderFlags_Logarithmic))
        c.epochs = size_t(std::max(epochs, 1));
    if (studentT) ImGui::SliderFloat("Perplexity", &c.perplexity, 5.0f, 100.0f, "%.0f");
    ImGui::PopItemWidth();

    auto& polish = ws.polish();
    if (polish.running()) {
        if (ImGui::Button("Cancel##polish")) polish.cancel();
        ImGui::SameLine();
        const std::string label = "polishing " + std::to_string(int(polish.progress() * 100)) + "%";
        ImGui::ProgressBar(float(polish.progress()), ImVec2(-1, 0), label.c_str());
    } else {
        const bool settled = ws.idle() && ws.state().data.events() > 0;
        ImGui::BeginDisabled(!settled);
        if (ImGui::Button("Polish the picture", ImVec2(-1, 0))) polish.start(c);
        ImGui::EndDisabled();
        const char* where = ws.backend().polish && !studentT
                                ? "Polishes every cell in the gates from EmbedSOM's picture, on "
                                  "the GPU (a new polish replaces the one shown)"
                                : "Polishes every cell in the gates from EmbedSOM's picture, on "
                                  "the CPU (a new polish replaces the one shown)";
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", settled ? where
                                            : "Waits for the picture to settle (pause training "
                                              "first)");
    }
    if (const app::PolishedPicture* shown = polish.shown()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(kPolishNoteColour,
                           "Polished (%s): the cells no longer follow the landmarks. A drag, "
                           "training or new parameters return to EmbedSOM's picture.",
                           shown->label.c_str());
        ImGui::PopTextWrapPos();
        if (ImGui::Button("Back to EmbedSOM", ImVec2(-1, 0))) polish.returnToEmbedSom();
    }
}

}  // namespace sepal::ui
