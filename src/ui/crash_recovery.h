#pragma once
// On start, the offer of the last session that ended in a crash: a dialog (Restore / Not now),
// and File > Restore autosave with the folder's autosaves.

#include <optional>
#include <string>

#include "app/autosave_folder.h"
#include "ui/ui_context.h"

namespace sepal::ui {

/// The crashed session offered once on start, and the autosave folder's menu.
class CrashRecovery {
  public:
    /// folder: the autosave folder (its dir "" = autosave off); offer: the crashed session to
    /// offer, read before this launch claimed its own file.
    CrashRecovery(const app::AutosaveFolder& folder, std::optional<app::AutosaveFile> offer);
    /// The session file on offer ("" once answered, or when none).
    std::string offered() const { return m_offer ? m_offer->path : ""; }
    /// Restores the offered session and marks it seen; false when nothing is on offer (errors
    /// go to the log, the open data stays).
    bool restore(UiContext& ctx);
    /// Declines the offer: the session is marked seen and stays under File > Restore autosave.
    bool dismiss();
    /// True while the dialog is on screen.
    bool dialogOpen() const { return m_open; }
    /// Draws the dialog while the offer stands.
    void drawDialog(UiContext& ctx, float contentScale);
    /// Draws the "Restore autosave" submenu (inside the File menu).
    void drawMenu(UiContext& ctx);

  private:
    const app::AutosaveFolder& m_folder;
    std::optional<app::AutosaveFile> m_offer;
    std::string m_summary;  // the offered session's files, for the dialog
    bool m_open = false;    // the dialog is open in Dear ImGui
    int m_frames = 0;       // frames drawn
};

}  // namespace sepal::ui
