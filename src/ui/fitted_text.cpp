#include "ui/fitted_text.h"

#include <imgui.h>

#include "core/common/text.h"

namespace sepal::ui {

std::string fittedText(const std::string& text, float width) {
    return elideMiddle(
        text, width, [](const std::string& t) { return double(ImGui::CalcTextSize(t.c_str()).x); },
        "...");
}

std::vector<std::string> fittedNames(const std::vector<std::string>& names, float width) {
    return elideApart(
        names, width, [](const std::string& t) { return double(ImGui::CalcTextSize(t.c_str()).x); },
        "...");
}

}  // namespace sepal::ui
