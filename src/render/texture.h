#pragma once
// An RGBA picture in an OpenGL texture, for a Dear ImGui window to show (the Biaxial window).

#include <epoxy/gl.h>

#include <cstdint>

namespace sepal::render {

/// One texture, created on the first upload and deleted with the object (needs the GL context).
class Texture {
  public:
    Texture() = default;
    ~Texture();
    Texture(const Texture&) = delete;
    Texture& operator=(const Texture&) = delete;

    /// Replaces the picture: width x height RGBA bytes, top row first; nearest-pixel sampling.
    void upload(const uint8_t* rgba, int width, int height);
    /// The GL name (0 before the first upload).
    GLuint id() const { return m_id; }

  private:
    GLuint m_id = 0;
};

}  // namespace sepal::render
