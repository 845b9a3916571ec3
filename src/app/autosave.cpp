#include "app/autosave.h"

#include "app/workspace.h"

namespace sepal::app {

namespace {
constexpr double kAutosaveSeconds = 30.0;
}  // namespace

void Autosaver::save(Workspace& workspace, const std::array<float, 3>& camera, bool force) {
    if (m_path.empty() || workspace.state().data.events() == 0) return;
    const double t = workspace.seconds();
    if (!force && t - m_last < kAutosaveSeconds) return;
    m_last = t;
    // The state's counter moves with every change: an unchanged session is not written again.
    if (workspace.state().counter == m_savedCounter && !force) return;
    m_savedCounter = workspace.state().counter;
    try {
        workspace.exports().saveSession(m_path, camera);
    } catch (const std::exception& e) {
        workspace.log(LogEntry::Warning, std::string("autosave failed: ") + e.what());
    }
}

}  // namespace sepal::app
