#pragma once
// Plays a script frame by frame: input actions become virtual mouse and keys, the rest call
// the workspace as the windows would.

#include <deque>
#include <string>
#include <vector>

#include "gui/application.h"
#include "gui/script.h"

namespace sepal::gui {

/// One JSON line describing the application's state (the script's "state" action; tests read
/// it): counts, undo labels, the canvas and each landmark in window pixels, the colour key.
std::string stateJson(Application& application);

/// Feeds one InputFrame per frame and runs the actions in order.
class ScriptPlayer {
  public:
    /// Plays `actions` against `app`.
    ScriptPlayer(Application& app, std::vector<ScriptAction> actions);
    /// The virtual input for the frame about to start.
    InputFrame input();
    /// Runs actions after a frame (until one needs more frames).
    void afterFrame();

  private:
    void start(const ScriptAction& a);
    void press(float x, float y, int button, bool ctrl, bool shift, const std::vector<float>& path);
    float canvasX(float x) const;
    float canvasY(float y) const;

    Application& m_app;
    std::vector<ScriptAction> m_actions;
    size_t m_next = 0;
    std::deque<InputFrame> m_frames;  // queued virtual input
    InputFrame m_idle;                // input between actions (mouse rests where it was)
    int m_wait = 0;
    bool m_settle = false;
    bool m_scored = false;  // waiting for the picture's quality score
    int m_settleFrames = 0;
};

}  // namespace sepal::gui
