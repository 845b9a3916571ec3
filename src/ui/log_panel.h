#pragma once
// The Log window: every message, errors in red.

#include "ui/panel.h"

namespace sepal::ui {

/// Scrolling list of log entries.
class LogPanel : public Panel {
  public:
    const char* title() const override { return "Log"; }
    void draw(UiContext& ctx) override;

  private:
    size_t m_seen = 0;
};

}  // namespace sepal::ui
