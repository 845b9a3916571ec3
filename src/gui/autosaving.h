#pragma once
// The autosave as a hook of the frame loop: this launch claims its own file in the autosave
// folder, saves while the session changes and on exit, and offers the session of the last launch
// that crashed (found before this launch claimed its file).

#include <memory>
#include <string>

#include "app/autosave.h"
#include "app/autosave_folder.h"
#include "app/workspace.h"
#include "gui/frame_hook.h"
#include "ui/crash_recovery.h"

namespace sepal::gui {

/// The autosave folder, this launch's autosaver and the crash recovery it offers.
class Autosaving : public FrameHook {
  public:
    /// folder: the autosave folder ("" = autosave off); problems go to the workspace's log.
    Autosaving(const std::string& folder, app::Workspace& workspace);
    /// Saves when due (half a minute after a change).
    void afterFrame(Application& app) override;
    /// Saves at once and releases this launch's file.
    void atExit(Application& app) override;
    /// Saves now, as the timer would (scripts).
    void saveNow(Application& app);
    /// The crashed session offered on start (the dialog, File > Restore autosave).
    ui::CrashRecovery& recovery() { return *m_recovery; }

  private:
    std::unique_ptr<app::AutosaveFolder> m_folder;
    std::unique_ptr<app::Autosaver> m_autosave;
    std::unique_ptr<ui::CrashRecovery> m_recovery;
};

}  // namespace sepal::gui
