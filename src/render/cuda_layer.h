#pragma once
// The point layer's picture drawn by CUDA (cuda/point_splats.h): the cells' positions and
// colours are read from device memory (the projector's positions and a device copy of the
// colours: the vertex buffers of 10^8 cells may live in host memory), the splats are written into
// a pixel buffer shared with CUDA, and OpenGL copies that into the layer's texture on the GPU.
// While the view stays, a picture only redraws the cells that changed since the last (a training
// frame's slice, a drag's cells): the same picture at a fraction of the cost.
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
    /// Milliseconds the last picture's kernels took on the device.
    double lastDeviceMs() const;

  private:
    struct State;
    std::unique_ptr<State> m_state;
};

/// The cells' colours in device memory, for the splats; copied from the host when they change.
class CudaColours {
  public:
    CudaColours();
    ~CudaColours();
    CudaColours(const CudaColours&) = delete;
    CudaColours& operator=(const CudaColours&) = delete;

    /// Copies n x 4 colour bytes from the host. Throws std::runtime_error on CUDA failures
    /// (out of device memory included).
    void upload(const uint8_t* rgba, size_t n);
    /// The device copy (n x 4 bytes of the last upload).
    const uint8_t* data() const;

  private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace sepal::render
