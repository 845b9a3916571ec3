#pragma once
// Plays a script frame by frame: input actions become virtual mouse and keys, the rest call
// the workspace as the windows would. What each verb does is in script_verbs.cpp; this is only
// the order and the waiting between them.

#include <string>
#include <vector>

#include "gui/application.h"
#include "gui/frame_hook.h"
#include "gui/script.h"
#include "gui/script_run.h"
#include "gui/state_json.h"

namespace sepal::gui {

/// Feeds one InputFrame per frame and runs the actions in order, then quits.
class ScriptPlayer : public FrameHook {
  public:
    /// Plays `actions` against `app`.
    ScriptPlayer(Application& app, std::vector<ScriptAction> actions);
    /// Fills the frame about to start with the queued virtual input (or the resting mouse).
    bool input(InputFrame& f) override;
    /// Runs actions after a frame until one needs more frames; quits after the last.
    void afterFrame(Application&) override;

  private:
    Application& m_app;
    std::vector<ScriptAction> m_actions;
    size_t m_next = 0;
    ScriptRun m_run;
};

}  // namespace sepal::gui
