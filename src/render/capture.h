#pragma once
// Reading pixels back from OpenGL and writing them as PNG; an offscreen target for exports.

#include <epoxy/gl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sepal::render {

/// An RGBA8 image, rows top to bottom.
struct Image {
    int width = 0, height = 0;  ///< pixels
    std::vector<uint8_t> rgba;  ///< width * height * 4 bytes
};

/// Reads the currently bound framebuffer (width x height pixels from the origin), top row first.
Image readFramebuffer(int width, int height);
/// Writes an image as PNG (through a temporary name, then renamed); throws on failure.
void writePng(const std::string& path, const Image& image);

/// A framebuffer object of a chosen size (for PNG export at a size other than the window's).
class OffscreenTarget {
  public:
    /// Creates a width x height RGBA8 colour target; throws when the driver refuses it.
    OffscreenTarget(int width, int height);
    ~OffscreenTarget();
    OffscreenTarget(const OffscreenTarget&) = delete;
    OffscreenTarget& operator=(const OffscreenTarget&) = delete;
    /// Binds it for drawing and sets the viewport to its size.
    void bind() const;
    /// Rebinds the default framebuffer.
    static void unbind();
    /// Reads its pixels back (top row first).
    Image read() const;

  private:
    int m_width, m_height;
    GLuint m_fbo = 0, m_colour = 0;
};

}  // namespace sepal::render
