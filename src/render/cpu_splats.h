#pragma once
// Points splatted on the CPU as shaders/points.frag draws them (a round splat with a soft rim,
// alpha-blended in point order onto a cleared layer), for software OpenGL: Mesa's llvmpipe draws
// a few million points a second, these loops tens of millions on two cores. No OpenGL here.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal::render {

/// A width x height float picture, premultiplied RGBA, rows bottom to top (window order).
class CpuSplats {
  public:
    /// Clears the picture to transparent, sized width x height pixels.
    void begin(int width, int height);
    /// Blends points [first, first + count) over the picture in their order. xy: world positions
    /// (2 a point); rgba: colours (4 bytes a point, alpha 0 = not drawn); scale and offset: world
    /// to clip space (Camera::clipTransform); pointSize in pixels; alpha scales every splat. The
    /// rows are split between threads, so the picture does not depend on their number.
    void draw(const float* xy, const uint8_t* rgba, size_t first, size_t count,
              const float scale[2], const float offset[2], float pointSize, float alpha);
    /// The picture as premultiplied RGBA8 (what a layer texture drawn by OpenGL holds).
    void finish(std::vector<uint8_t>& rgba8) const;
    /// Pixels across and down.
    int width() const { return m_width; }
    /// Rows.
    int height() const { return m_height; }

  private:
    int m_width = 0, m_height = 0;
    std::vector<float> m_pixels;  // width x height x 4
};

}  // namespace sepal::render
