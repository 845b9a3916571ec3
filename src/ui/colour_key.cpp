#include "ui/colour_key.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace sepal::ui {

void drawColourKey(UiContext& ctx, std::array<float, 2> o, float contentScale) {
    const auto& key = ctx.workspace.colourKey();
    auto* dl = ImGui::GetBackgroundDrawList();
    float x1 = o[0] + ctx.camera.width() - 16, y1 = o[1] + ctx.camera.height() - 16;
    float line = ImGui::GetTextLineHeight();
    // What the key covers, from the canvas's lower right corner, with a gap for the picture.
    auto reserve = [&](float left, float top) {
        ctx.keySize = {o[0] + ctx.camera.width() - left + 8, o[1] + ctx.camera.height() - top + 8};
    };
    ctx.keySize = {0, 0};
    if (key.continuous) {
        float w = 220 * contentScale, h = 12 * contentScale;
        float x0 = x1 - w, y0 = y1 - h - line - 4;
        dl->AddRectFilled(ImVec2(x0 - 8, y0 - line - 10), ImVec2(x1 + 8, y1 + 8),
                          IM_COL32(15, 16, 20, 200), 4);
        reserve(x0 - 8, y0 - line - 10);
        dl->AddText(ImVec2(x0, y0 - line - 4), IM_COL32(230, 230, 230, 255), key.title.c_str());
        for (int i = 0; i < 64; ++i) {
            const float t = float(i) / 63.0f;
            auto c = app::colourMap(key.map, key.reversed ? 1.0f - t : t);
            dl->AddRectFilled(ImVec2(x0 + w * float(i) / 64, y0),
                              ImVec2(x0 + w * float(i + 1) / 64 + 1, y0 + h),
                              IM_COL32(c[0], c[1], c[2], 255));
        }
        char lo[32], hi[32];
        std::snprintf(lo, sizeof lo, "%.3g", key.low);
        std::snprintf(hi, sizeof hi, "%.3g", key.high);
        dl->AddText(ImVec2(x0, y0 + h + 2), IM_COL32(200, 200, 200, 255), lo);
        dl->AddText(ImVec2(x1 - ImGui::CalcTextSize(hi).x, y0 + h + 2),
                    IM_COL32(200, 200, 200, 255), hi);
    } else if (!key.legend.empty()) {
        size_t shown = std::min<size_t>(key.legend.size(), 16);
        float w = 0;
        for (size_t i = 0; i < shown; ++i)
            w = std::max(w, ImGui::CalcTextSize(key.legend[i].name.c_str()).x);
        w += line + 12;
        float h = float(shown + 1) * (line + 3);
        float x0 = x1 - w, y0 = y1 - h;
        dl->AddRectFilled(ImVec2(x0 - 8, y0 - 8), ImVec2(x1 + 8, y1 + 8), IM_COL32(15, 16, 20, 200),
                          4);
        reserve(x0 - 8, y0 - 8);
        dl->AddText(ImVec2(x0, y0), IM_COL32(230, 230, 230, 255), key.title.c_str());
        for (size_t i = 0; i < shown; ++i) {
            float y = y0 + float(i + 1) * (line + 3);
            auto c = key.legend[i].colour;
            dl->AddCircleFilled(ImVec2(x0 + line * 0.5f, y + line * 0.5f), line * 0.35f,
                                IM_COL32(c[0], c[1], c[2], 255));
            dl->AddText(ImVec2(x0 + line + 6, y), IM_COL32(220, 220, 220, 255),
                        key.legend[i].name.c_str());
        }
    }
}

}  // namespace sepal::ui
