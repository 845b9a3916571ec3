#pragma once
// The red banner over the canvas that shows the newest error for a few seconds.

#include <array>
#include <string>

#include "ui/ui_context.h"

namespace sepal::ui {

/// Shows each new error of the log along the canvas's lower edge until dismissed or 10 s passed.
class ErrorBanner {
  public:
    /// Draws over the canvas whose top-left is `origin` (window pixels).
    void draw(UiContext& ctx, std::array<float, 2> origin);

  private:
    size_t m_errorsSeen = 0;
    std::string m_banner;
    double m_bannerUntil = 0;
};

}  // namespace sepal::ui
