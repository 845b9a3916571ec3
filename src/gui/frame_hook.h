#pragma once
// Something that runs with the frame loop without being part of it: a script (--script), the
// screenshot of --screenshot, the benchmark of --bench-frames, the autosave. The loop calls each
// hook at the same points of every frame, so none of them needs a branch in the loop.

namespace sepal::gui {

class Application;
struct InputFrame;

/// One hook of the frame loop.
class FrameHook {
  public:
    virtual ~FrameHook() = default;
    /// Fills this frame's mouse and keys; false leaves the user's own input.
    virtual bool input(InputFrame&) { return false; }
    /// After the frame was drawn and shown.
    virtual void afterFrame(Application&) {}
    /// Once, when the loop ends (the window closed or a hook quit).
    virtual void atExit(Application&) {}
};

}  // namespace sepal::gui
