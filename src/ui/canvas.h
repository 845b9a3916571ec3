#pragma once
// The canvas: camera navigation, landmark editing, box selection, lasso brushing and hover.

#include <array>
#include <set>
#include <vector>

#include "ui/ui_context.h"

namespace sepal::ui {

/// Input handling over the drawing area; reads the workspace and emits its edits.
class Canvas {
  public:
    /// Sets the area (logical window pixels) the canvas covers this frame.
    void setArea(float x, float y, float width, float height);
    /// Handles this frame's mouse and keyboard input (when no window has it) and draws the
    /// interaction overlays (lasso, box, hover) with ImGui.
    void update(UiContext& ctx);
    /// Fits the camera to the landmarks and points, clear of the colour key.
    void fit(UiContext& ctx);
    /// What a fit shows: the 0.5th to 99.5th percentiles of the points, and the landmarks (while
    /// they are hidden, only those near the points' box).
    render::Bounds pictureBounds(const UiContext& ctx) const;
    /// True while `camera` shows the last fit (not panned or zoomed since).
    bool showsFit(const render::Camera& camera) const { return camera.state() == m_fitView; }
    /// Landmarks selected (box select, click); shared with the Landmarks window.
    std::set<size_t>& selection() { return m_selection; }
    /// The selected landmarks.
    const std::set<size_t>& selection() const { return m_selection; }
    /// The landmark under the mouse, or -1.
    int hoveredLandmark() const { return m_hoveredLandmark; }
    /// The cell the tooltip describes (the last under the mouse), or -1.
    long hoveredCell() const { return m_hoverPoint; }
    /// Top-left corner of the area in window pixels.
    std::array<float, 2> origin() const { return {m_x, m_y}; }

  private:
    void drawEmptyHint() const;
    // A line in the corner while the landmarks are hidden: how to show them to steer.
    void drawLandmarksHint() const;
    enum class Gesture { None, Pan, DragLandmarks, Box, Lasso, CtrlClick };
    int landmarkAt(const UiContext& ctx, float sx, float sy) const;
    long pointAt(const UiContext& ctx, float sx, float sy) const;
    void drawHover(UiContext& ctx, float sx, float sy);

    float m_x = 0, m_y = 0, m_w = 1, m_h = 1;
    Gesture m_gesture = Gesture::None;
    std::set<size_t> m_selection;
    int m_hoveredLandmark = -1;
    std::array<float, 2> m_press{};  // canvas pixels where the gesture started
    std::vector<size_t> m_dragIndices;
    std::vector<float> m_dragStart;  // world positions at press
    std::vector<float> m_lasso;      // canvas pixels
    long m_hoverPoint = -1;
    std::array<float, 2> m_lastMouse{-1, -1};
    std::array<float, 3> m_fitView{};  // camera state right after the last fit
};

}  // namespace sepal::ui
