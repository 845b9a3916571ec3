#pragma once
// A linked GLSL program built from the shaders embedded at build time.

#include <epoxy/gl.h>

#include <string>

namespace sepal::render {

/// Source text of an embedded shader by file name ("points.vert"); throws when unknown.
std::string shaderSource(const std::string& name);

/// Owns one GL program; compile and link errors throw std::runtime_error with the GL log.
class GlProgram {
  public:
    GlProgram() = default;
    /// Compiles and links the named embedded vertex and fragment shaders.
    GlProgram(const std::string& vertexName, const std::string& fragmentName);
    ~GlProgram();
    GlProgram(GlProgram&& other) noexcept;
    GlProgram& operator=(GlProgram&& other) noexcept;
    GlProgram(const GlProgram&) = delete;
    GlProgram& operator=(const GlProgram&) = delete;

    /// glUseProgram.
    void use() const { glUseProgram(m_id); }
    /// Location of a uniform (-1 when the linker dropped it).
    GLint uniform(const char* name) const { return glGetUniformLocation(m_id, name); }

  private:
    GLuint m_id = 0;
};

}  // namespace sepal::render
