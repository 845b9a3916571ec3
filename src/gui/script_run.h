#pragma once
// The playback's state between actions, which the verbs change: virtual input queued one frame
// at a time, and what holds the next action back (frames to pass, the application settling,
// the picture's quality score). Apart from the player so each verb needs only this.

#include <deque>
#include <vector>

#include "gui/application.h"

namespace sepal::gui {

/// What a script's verbs do to the playback besides calling the application.
struct ScriptRun {
    /// Plays against `app`; the mouse starts outside the window.
    explicit ScriptRun(Application& app);

    Application& app;               ///< what the verbs drive
    std::deque<InputFrame> frames;  ///< queued virtual input, one per frame
    InputFrame idle;                ///< input between actions (the mouse rests where it was)
    int wait = 0;                   ///< frames to let pass before the next action
    bool settle = false;            ///< hold until the application is idle
    bool scored = false;            ///< hold until the picture's quality score is in
    bool compared = false;          ///< hold until the conditions' comparison is in
    int comparedLine = 0;           ///< the script line of that compare, for its error
    int failed = 0;                 ///< lines that failed: the script then exits with status 1
    int settleFrames = 0;           ///< frames held for settle or scored (given up at 3000)
    bool stopped = false;           ///< quit: no further action runs

    /// Holds the next action until nothing is pending (opening, loading, projecting).
    void startSettling() { settle = true, settleFrames = 0; }
    /// Queues hover, press, moves through `path` (canvas pixels x, y, ...) and release.
    void press(float x, float y, int button, bool ctrl, bool shift, const std::vector<float>& path);
    /// A canvas pixel's window x (scripts speak canvas pixels, the input is in the window's).
    float canvasX(float x) const;
    /// A canvas pixel's window y.
    float canvasY(float y) const;
    /// The input for the frame about to start: the next queued one, else the idle one.
    InputFrame next();
    /// True while queued input, a wait, settling or scoring holds the next action.
    bool holding() const;
};

}  // namespace sepal::gui
