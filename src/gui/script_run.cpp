#include "gui/script_run.h"

namespace sepal::gui {

ScriptRun::ScriptRun(Application& application) : app(application) {
    idle.x = -1, idle.y = -1;
}

float ScriptRun::canvasX(float x) const {
    return app.canvas().origin()[0] + x;
}
float ScriptRun::canvasY(float y) const {
    return app.canvas().origin()[1] + y;
}

InputFrame ScriptRun::next() {
    if (frames.empty()) return idle;
    InputFrame f = frames.front();
    frames.pop_front();
    // The mouse stays where the last frame left it, with nothing pressed.
    idle = f;
    for (bool& d : idle.down) d = false;
    idle.key = -1;
    idle.wheel = 0;
    idle.ctrl = idle.shift = false;
    return f;
}

void ScriptRun::press(float x, float y, int button, bool ctrl, bool shift,
                      const std::vector<float>& path) {
    // Hover first so the canvas sees what is under the mouse, then press, move, release.
    InputFrame f;
    f.x = canvasX(x), f.y = canvasY(y), f.ctrl = ctrl, f.shift = shift;
    frames.push_back(f);
    f.down[button] = true;
    frames.push_back(f);
    for (size_t i = 0; i + 1 < path.size(); i += 2) {
        f.x = canvasX(path[i]), f.y = canvasY(path[i + 1]);
        frames.push_back(f);
    }
    f.down[button] = false;
    frames.push_back(f);
    frames.push_back(f);
}

bool ScriptRun::holding() const {
    return !frames.empty() || wait != 0 || settle || scored || compared;
}

}  // namespace sepal::gui
