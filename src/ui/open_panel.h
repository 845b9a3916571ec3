#pragma once
// The Open window: a file browser with recent files, several files as samples, progress, cancel.

#include <string>
#include <vector>

#include "ui/panel.h"

namespace sepal::ui {

/// Browse folders, pick FCS/CSV/TSV files (several at once become samples), see recent files.
class OpenPanel : public Panel {
  public:
    OpenPanel();
    const char* title() const override { return "Open"; }
    void draw(UiContext& ctx) override;
    bool openByDefault() const override { return false; }

  private:
    void refresh();
    std::string m_folder;
    std::vector<std::string> m_entries;  // folders end with '/'
    std::vector<bool> m_selected;
    bool m_addAsSamples = false;
    char m_path[1024] = {};
};

}  // namespace sepal::ui
