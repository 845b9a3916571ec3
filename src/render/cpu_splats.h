#pragma once
// Points splatted on the CPU with the CUDA splats' rules (cuda/point_splats.h): a round splat
// with a soft rim (as shaders/points.frag draws it) adds, per pixel, integer sums of colour x
// coverage and of coverage; the picture is their resolution, alpha 1 - (1 - alpha)^(splats) and
// the coverage-weighted mean colour. The sums do not depend on the cells' order, so cells that
// moved are taken out and put back where they are now, and a drag redraws only what it moved.
// For software OpenGL: Mesa's llvmpipe draws a few million points a second, these loops tens of
// millions on two cores. No OpenGL here.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal::render {

/// A width x height picture of splat sums, rows bottom to top (window order).
class CpuSplats {
  public:
    /// Clears the picture (no splats), sized width x height pixels.
    void begin(int width, int height);
    /// Adds the splats of cells [first, first + count). xy: world positions (2 a cell); rgba:
    /// colours (4 bytes a cell, alpha 0 = not drawn); scale and offset: world to clip space
    /// (Camera::clipTransform); pointSize in pixels. The rows are split between threads, so the
    /// picture does not depend on their number.
    void draw(const float* xy, const uint8_t* rgba, size_t first, size_t count,
              const float scale[2], const float offset[2], float pointSize);
    /// For the cells [first, first + count) whose position or colour differs between the drawn
    /// (drawnXy, drawnRgba) and the current (xy, rgba) arrays: takes the drawn splat out and adds
    /// the current one. The caller then copies the current values into the drawn arrays.
    /// Returns how many cells changed.
    size_t update(const float* drawnXy, const uint8_t* drawnRgba, const float* xy,
                  const uint8_t* rgba, size_t first, size_t count, const float scale[2],
                  const float offset[2], float pointSize);
    /// The picture as premultiplied RGBA8 (what a layer texture drawn by OpenGL holds); alpha is
    /// the opacity of one splat.
    void finish(std::vector<uint8_t>& rgba8, float alpha) const;
    /// Pixels across and down.
    int width() const { return m_width; }
    /// Rows.
    int height() const { return m_height; }

  private:
    int m_width = 0, m_height = 0;
    std::vector<uint32_t> m_sums;  // width x height x (red, green, blue, coverage)
};

}  // namespace sepal::render
