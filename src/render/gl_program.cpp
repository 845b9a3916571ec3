#include "render/gl_program.h"

#include <stdexcept>
#include <string_view>
#include <utility>

namespace sepal::render {

extern const std::pair<std::string_view, std::string_view> kEmbeddedShaders[];
extern const int kEmbeddedShaderCount;

std::string shaderSource(const std::string& name) {
    for (int i = 0; i < kEmbeddedShaderCount; ++i)
        if (kEmbeddedShaders[i].first == name) return std::string(kEmbeddedShaders[i].second);
    throw std::runtime_error("shader '" + name + "' was not embedded at build time");
}

namespace {
GLuint compile(GLenum type, const std::string& name) {
    std::string text = shaderSource(name);
    const char* src = text.c_str();
    GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &src, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048] = {};
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        glDeleteShader(shader);
        throw std::runtime_error("shader " + name + " does not compile: " + log);
    }
    return shader;
}
}  // namespace

GlProgram::GlProgram(const std::string& vertexName, const std::string& fragmentName) {
    GLuint vs = compile(GL_VERTEX_SHADER, vertexName);
    GLuint fs = compile(GL_FRAGMENT_SHADER, fragmentName);
    m_id = glCreateProgram();
    glAttachShader(m_id, vs);
    glAttachShader(m_id, fs);
    glLinkProgram(m_id);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(m_id, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048] = {};
        glGetProgramInfoLog(m_id, sizeof log, nullptr, log);
        glDeleteProgram(m_id);
        m_id = 0;
        throw std::runtime_error("program " + vertexName + "+" + fragmentName +
                                 " does not link: " + log);
    }
}

GlProgram::~GlProgram() {
    if (m_id) glDeleteProgram(m_id);
}

GlProgram::GlProgram(GlProgram&& other) noexcept : m_id(std::exchange(other.m_id, 0)) {}

GlProgram& GlProgram::operator=(GlProgram&& other) noexcept {
    if (this != &other) {
        if (m_id) glDeleteProgram(m_id);
        m_id = std::exchange(other.m_id, 0);
    }
    return *this;
}

}  // namespace sepal::render
