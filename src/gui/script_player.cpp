#include "gui/script_player.h"

#include <cstdio>

#include "gui/script_verbs.h"

namespace sepal::gui {

ScriptPlayer::ScriptPlayer(Application& app, std::vector<ScriptAction> actions)
    : m_app(app), m_actions(std::move(actions)), m_run(app) {}

bool ScriptPlayer::input(InputFrame& f) {
    f = m_run.next();
    return true;
}

void ScriptPlayer::afterFrame(Application&) {
    if (!m_run.frames.empty()) return;
    if (m_run.wait > 0) {
        --m_run.wait;
        return;
    }
    // Settling and scoring give up after 3000 frames so a stuck script still ends.
    if (m_run.settle) {
        if (!m_app.idle() && ++m_run.settleFrames < 3000) return;
        m_run.settle = false;
    }
    if (m_run.scored) {
        const auto& q = m_app.workspace().quality();
        if ((!q.valid || q.scoring) && ++m_run.settleFrames < 3000) return;
        m_run.scored = false;
    }
    if (m_run.compared) {
        auto& comparison = m_app.workspace().comparison();
        const bool waiting =
            comparison.computing() || (!comparison.current().valid && comparison.error().empty());
        if (waiting && ++m_run.settleFrames < 3000) return;
        m_run.compared = false;
        // The comparison's own refusal (a level no sample has) belongs to the compare line.
        if (!comparison.error().empty()) {
            std::fprintf(stderr, "script line %d (compare): %s\n", m_run.comparedLine,
                         comparison.error().c_str());
            ++m_run.failed;
        }
    }
    while (m_next < m_actions.size() && !m_run.holding()) {
        const auto& a = m_actions[m_next++];
        try {
            // readScript refuses unknown verbs, so a verb missing here does nothing.
            if (const ScriptVerb* verb = findScriptVerb(a.verb)) verb->run(m_run, a);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "script line %d (%s): %s\n", a.line, a.verb.c_str(), e.what());
            m_app.workspace().log(app::LogEntry::Error, std::string("script: ") + e.what());
            ++m_run.failed;
        }
        if (m_run.stopped) m_next = m_actions.size();
    }
    // A line that failed makes the run's exit status 1 (the rest still ran, as in the window).
    if (m_next >= m_actions.size() && !m_run.holding()) m_app.quit(m_run.failed > 0 ? 1 : 0);
}

}  // namespace sepal::gui
