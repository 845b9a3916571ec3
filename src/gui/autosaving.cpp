#include "gui/autosaving.h"

#include <exception>

#include "gui/application.h"

namespace sepal::gui {

Autosaving::Autosaving(const std::string& folder, app::Workspace& workspace)
    : m_folder(std::make_unique<app::AutosaveFolder>(folder)) {
    // The crashed session is looked for before this launch claims its own autosave file.
    auto crashed = m_folder->lastCrashed();
    std::string path;
    try {
        path = m_folder->claim();
    } catch (const std::exception& e) {
        workspace.log(app::LogEntry::Warning, std::string("autosave is off: ") + e.what());
    }
    m_autosave = std::make_unique<app::Autosaver>(path);
    m_recovery = std::make_unique<ui::CrashRecovery>(*m_folder, std::move(crashed));
}

void Autosaving::afterFrame(Application& app) {
    m_autosave->save(app.workspace(), app.camera().state(), false);
}

void Autosaving::saveNow(Application& app) {
    m_autosave->save(app.workspace(), app.camera().state(), true);
}

void Autosaving::atExit(Application& app) {
    saveNow(app);
    m_folder->release();
}

}  // namespace sepal::gui
