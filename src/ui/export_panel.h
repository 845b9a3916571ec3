#pragma once
// The Export window: CSV, FCS with added parameters, PNG at a chosen size, model JSON, session.

#include <string>

#include "core/pipeline/export_table.h"
#include "ui/panel.h"

namespace sepal::ui {

/// Writes the user's results; errors go to the log and the error banner.
class ExportPanel : public Panel {
  public:
    ExportPanel();
    const char* title() const override { return "Export"; }
    void draw(UiContext& ctx) override;

  private:
    std::string m_folder, m_base = "sepal";
    int m_width = 1600, m_height = 1200;
    bool m_key = true;
    bool m_light = false;                       // the PNG on a white background
    bool m_landmarks = false, m_graph = false;  // drawn over the cells in exported pictures
    ExportOptions m_options;  // values, channels and per-population files of CSV/FCS exports
    std::string m_status;
};

}  // namespace sepal::ui
