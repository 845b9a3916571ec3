#pragma once
// The Data window: every channel with its role, the markers to use, the transform (arcsinh,
// logicle or none) with a histogram, and compensation (the file's matrix or one from a file).

#include <vector>

#include "core/markers/marker_classes.h"
#include "core/transform/channel_roles.h"
#include "ui/panel.h"

namespace sepal::ui {

/// Edits the transform pipeline; every change is one undo step.
class DataPanel : public Panel {
  public:
    const char* title() const override { return "Data"; }
    void draw(UiContext& ctx) override;
    bool openByDefault() const override { return false; }

  private:
    int m_preview = 0;            // channel whose histogram is shown
    char m_filter[64] = {};       // shows channels whose label holds this text
    char m_spillover[512] = {};   // path of a spillover matrix file to load
    float m_listHeight = 0;       // height of the channel list (dragged by its lower edge)
    uint64_t m_rolesFor = ~0ull;  // data version the roles were computed for
    std::vector<ChannelRole> m_roles;
    std::vector<MarkerClass> m_classes;  // each channel's class, with the user's choices
    MarkerClassOverrides m_classesFrom;  // the user's choices m_classes was made with
};

}  // namespace sepal::ui
