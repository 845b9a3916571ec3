#include "gui/screenshot_hook.h"

#include "gui/application.h"

namespace sepal::gui {

namespace {
// 10^8 cells take a while to open at hundreds of frames a second: a count of frames would give
// up too early, so the wait is in seconds.
constexpr double kMostWaitSeconds = 300;
// Frames the picture must stay settled before it is taken.
constexpr int kSettledFrames = 3;
}  // namespace

void ScreenshotHook::afterFrame(Application& app) {
    if (m_requested) {
        app.quit(0);  // the capture was made while the frame after the request was drawn
        return;
    }
    auto& ws = app.workspace();
    // A file that failed to open is ready too: the picture then shows the error.
    const bool ready =
        app.idle() && (ws.state().data.events() > 0 || !m_waitForData || ws.errorCount() > 0);
    const double now = ws.seconds();
    if (!m_waiting) m_waiting = true, m_waitStart = now;
    if ((ready && ++m_settledFrames > kSettledFrames) || now - m_waitStart > kMostWaitSeconds) {
        app.requestScreenshot(m_path);
        m_requested = true;
    }
}

}  // namespace sepal::gui
