#pragma once
// The two fixed side bars around the canvas: each a column of collapsible windows (Panels).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ui/panel.h"

namespace sepal::ui {

/// The windows of the left and right bars, drawn as collapsing sections.
class SideBars {
  public:
    /// The left bar's windows, top to bottom.
    std::vector<std::unique_ptr<Panel>>& left() { return m_left; }
    /// The right bar's windows, top to bottom.
    std::vector<std::unique_ptr<Panel>>& right() { return m_right; }
    /// Opens or closes the section titled `title` next frame (scripts).
    void request(const std::string& title, bool open) { m_requests[title] = open; }
    /// Draws both bars below `top`, `left` and `right` logical pixels wide.
    void draw(UiContext& ctx, float top, float left, float right);

  private:
    std::vector<std::unique_ptr<Panel>> m_left, m_right;
    std::map<std::string, bool> m_requests;
};

}  // namespace sepal::ui
