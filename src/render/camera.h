#pragma once
// The 2D camera over the embedding: pan, zoom about a point, fit to bounds.

#include <array>

namespace sepal::render {

/// Axis-aligned bounds in world (embedding) units.
struct Bounds {
    float minX = 0, minY = 0, maxX = 1, maxY = 1;  ///< corners, world units
};

/// Margin of a fit on each side, as a fraction of the view.
constexpr float kFitMargin = 0.06f;

/// Maps world units (y up) to window pixels (y down, logical pixels, origin top-left).
class Camera {
  public:
    /// Sets the viewport size in logical pixels (the canvas area).
    void setViewport(float width, float height);
    /// Viewport width in logical pixels.
    float width() const { return m_width; }
    /// Viewport height in logical pixels.
    float height() const { return m_height; }
    /// World point -> window pixel.
    std::array<float, 2> toScreen(float wx, float wy) const;
    /// Window pixel -> world point.
    std::array<float, 2> toWorld(float sx, float sy) const;
    /// Moves the view by a pixel offset (a drag of dx, dy pixels moves the picture along).
    void panPixels(float dx, float dy);
    /// Multiplies the zoom by `factor`, keeping the world point under pixel (sx, sy) fixed.
    void zoomAbout(float sx, float sy, float factor);
    /// Centres the bounds with a margin (fraction of the view) in the view less a strip of
    /// `reserveRight` pixels on the right and `reserveBottom` at the bottom (kept free for the
    /// colour key).
    void fit(const Bounds& bounds, float margin = kFitMargin, float reserveRight = 0,
             float reserveBottom = 0);
    /// fit() with the default margin; where a box of cornerW x cornerH pixels in the lower right
    /// corner (the colour key) would cover the picture's corner, the box gets a strip on the
    /// right or at the bottom, whichever keeps the picture larger.
    void fitClearOfCorner(const Bounds& bounds, float cornerW, float cornerH);
    /// Clip-space scale and offset for the point shader: clip = world * scale + offset.
    void clipTransform(float scale[2], float offset[2]) const;
    /// World units per logical pixel.
    float unitsPerPixel() const { return 1.0f / m_pixelsPerUnit; }
    /// Centre of the view (world) and zoom (pixels per world unit), for sessions.
    std::array<float, 3> state() const { return {m_centreX, m_centreY, m_pixelsPerUnit}; }
    /// Restores what state() returned.
    void setState(const std::array<float, 3>& s);

  private:
    float m_width = 1, m_height = 1;
    float m_centreX = 0, m_centreY = 0;
    float m_pixelsPerUnit = 1;
};

}  // namespace sepal::render
