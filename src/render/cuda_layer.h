#pragma once
// The point layer's picture drawn by CUDA (cuda/point_splats.h): the cells' positions and
// colours are read where OpenGL keeps them (mapped vertex buffers), the splats are written into
// a pixel buffer shared with CUDA, and OpenGL copies that into the layer's texture on the GPU.
// Only functional in builds with CUDA; elsewhere available() is false and paint() throws.

#include <epoxy/gl.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace sepal::render {

/// Paints complete pictures of splats into textures.
class CudaLayerPainter {
  public:
    CudaLayerPainter();
    ~CudaLayerPainter();
    CudaLayerPainter(const CudaLayerPainter&) = delete;
    CudaLayerPainter& operator=(const CudaLayerPainter&) = delete;

    /// True when this build has CUDA.
    static bool available();
    /// Splats n cells into `texture` (width x height RGBA8, premultiplied): xy (n x 2 world
    /// positions) and rgba (n x 4 bytes) are device pointers; scale and offset map world to
    /// clip space. Throws std::runtime_error on CUDA or interop failures.
    void paint(GLuint texture, int width, int height, const float* xy, const uint8_t* rgba,
               size_t n, const float scale[2], const float offset[2], float pointSize, float alpha);

  private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace sepal::render
