#pragma once
// --screenshot PATH: once the data is open and its picture settled, the window is saved as PNG
// and the application quits.

#include <string>

#include "gui/frame_hook.h"

namespace sepal::gui {

/// Waits for the settled picture, captures it, then quits.
class ScreenshotHook : public FrameHook {
  public:
    /// path: the PNG; waitForData: files were given, so the picture waits for them.
    ScreenshotHook(std::string path, bool waitForData)
        : m_path(std::move(path)), m_waitForData(waitForData) {}
    void afterFrame(Application& app) override;

  private:
    std::string m_path;
    bool m_waitForData;
    bool m_requested = false;
    int m_settledFrames = 0;
    bool m_waiting = false;
    double m_waitStart = 0;  // when waiting began (seconds)
};

}  // namespace sepal::gui
