#include "render/capture.h"

#include <stb_image_write.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>

namespace sepal::render {

Image readFramebuffer(int width, int height) {
    Image image{width, height, std::vector<uint8_t>(size_t(width) * height * 4)};
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
    // GL's origin is the bottom-left corner; images are stored top row first.
    size_t stride = size_t(width) * 4;
    std::vector<uint8_t> row(stride);
    for (int y = 0; y < height / 2; ++y) {
        uint8_t* a = image.rgba.data() + y * stride;
        uint8_t* b = image.rgba.data() + (height - 1 - y) * stride;
        std::memcpy(row.data(), a, stride);
        std::memcpy(a, b, stride);
        std::memcpy(b, row.data(), stride);
    }
    // The window is opaque: drop the alpha that blending left in the framebuffer.
    for (size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = 255;
    return image;
}

void writePng(const std::string& path, const Image& image) {
    std::string tmp = path + ".tmp-" + std::to_string(std::random_device{}() % 1000000);
    if (!stbi_write_png(tmp.c_str(), image.width, image.height, 4, image.rgba.data(),
                        image.width * 4)) {
        std::filesystem::remove(tmp);
        throw std::runtime_error("cannot write PNG " + path +
                                 ": check the folder exists and is "
                                 "writable");
    }
    std::filesystem::rename(tmp, path);
}

OffscreenTarget::OffscreenTarget(int width, int height) : m_width(width), m_height(height) {
    glGenFramebuffers(1, &m_fbo);
    glGenRenderbuffers(1, &m_colour);
    glBindRenderbuffer(GL_RENDERBUFFER, m_colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, m_colour);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        glDeleteRenderbuffers(1, &m_colour);
        glDeleteFramebuffers(1, &m_fbo);
        throw std::runtime_error("the graphics driver cannot render a " + std::to_string(width) +
                                 "x" + std::to_string(height) + " image; try a smaller size");
    }
}

OffscreenTarget::~OffscreenTarget() {
    glDeleteRenderbuffers(1, &m_colour);
    glDeleteFramebuffers(1, &m_fbo);
}

void OffscreenTarget::bind() const {
    glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
    glViewport(0, 0, m_width, m_height);
}

void OffscreenTarget::unbind() {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

Image OffscreenTarget::read() const {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, m_fbo);
    Image image = readFramebuffer(m_width, m_height);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    return image;
}

}  // namespace sepal::render
