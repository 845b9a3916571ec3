#include "render/cuda_layer.h"

#include <algorithm>
#include <stdexcept>

#ifdef SEPAL_HAVE_CUDA
#include "cuda/cuda_error.h"
#include "cuda/device_buffer.h"
#include "cuda/point_splats.h"
#include "render/cuda_interop.h"
#endif

namespace sepal::render {

#ifdef SEPAL_HAVE_CUDA
struct CudaLayerPainter::State {
    GLuint pixels = 0;  // the pixel buffer CUDA writes and the texture is filled from
    size_t bytes = 0;
    CudaGlBuffer shared;
    cuda::CudaSplats splats;
};

CudaLayerPainter::CudaLayerPainter() : m_state(std::make_unique<State>()) {}

CudaLayerPainter::~CudaLayerPainter() {
    m_state->shared.detach();
    if (m_state->pixels) glDeleteBuffers(1, &m_state->pixels);
}

bool CudaLayerPainter::available() {
    return true;
}

void CudaLayerPainter::paint(GLuint texture, int width, int height, const float* xy,
                             const uint8_t* rgba, size_t n, const float scale[2],
                             const float offset[2], float pointSize, float alpha) {
    State& s = *m_state;
    const size_t bytes = size_t(width) * size_t(height) * 4;
    if (bytes == 0) return;
    if (bytes != s.bytes) {
        s.shared.detach();
        if (!s.pixels) glGenBuffers(1, &s.pixels);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, s.pixels);
        glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        s.shared.attach(s.pixels, bytes, CudaGlAccess::WriteDiscard);
        s.bytes = bytes;
    }
    cuda::SplatInput in;
    in.xy = xy;
    in.rgba = rgba;
    in.n = n;
    in.scale[0] = scale[0], in.scale[1] = scale[1];
    in.offset[0] = offset[0], in.offset[1] = offset[1];
    in.pointSize = pointSize;
    in.alpha = alpha;
    in.width = width, in.height = height;
    auto* out = static_cast<uint8_t*>(s.shared.mapBytes());
    try {
        s.splats.draw(in, out);
    } catch (...) {
        s.shared.unmap();
        throw;
    }
    s.shared.unmap();
    // The texture filled from the pixel buffer: a copy on the GPU, no trip through the host.
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, s.pixels);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindTexture(GL_TEXTURE_2D, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

struct CudaColours::State {
    cuda::DeviceBuffer<uint8_t> rgba;
};

CudaColours::CudaColours() : m_state(std::make_unique<State>()) {}

CudaColours::~CudaColours() = default;

void CudaColours::upload(const uint8_t* rgba, size_t n) {
    m_state->rgba.reserve(std::max<size_t>(4 * n, 4));
    if (n > 0)
        SEPAL_CUDA_CHECK(cudaMemcpy(m_state->rgba.get(), rgba, 4 * n, cudaMemcpyHostToDevice));
}

const uint8_t* CudaColours::data() const {
    return m_state->rgba.get();
}
double CudaLayerPainter::lastDeviceMs() const {
    return m_state->splats.lastDeviceMs();
}
#else
struct CudaLayerPainter::State {};
CudaLayerPainter::CudaLayerPainter() = default;
CudaLayerPainter::~CudaLayerPainter() = default;
bool CudaLayerPainter::available() {
    return false;
}
void CudaLayerPainter::paint(GLuint, int, int, const float*, const uint8_t*, size_t, const float*,
                             const float*, float, float) {
    throw std::runtime_error("this Sepal was built without CUDA");
}
double CudaLayerPainter::lastDeviceMs() const {
    return 0;
}
struct CudaColours::State {};
CudaColours::CudaColours() = default;
CudaColours::~CudaColours() = default;
void CudaColours::upload(const uint8_t*, size_t) {
    throw std::runtime_error("this Sepal was built without CUDA");
}
const uint8_t* CudaColours::data() const {
    return nullptr;
}
#endif

}  // namespace sepal::render
