#include "render/cuda_interop.h"

#include <stdexcept>

#ifdef SEPAL_HAVE_CUDA
// cuda_gl_interop.h needs the GL types, which epoxy (included above) provides.
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>
#endif

namespace sepal::render {

#ifdef SEPAL_HAVE_CUDA
namespace {
void check(cudaError_t code, const char* what) {
    if (code != cudaSuccess)
        throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(code));
}
}  // namespace

struct CudaGlBuffer::State {
    cudaGraphicsResource_t resource = nullptr;
    GLuint buffer = 0;
    size_t bytes = 0;
    bool mapped = false;
};

CudaGlBuffer::CudaGlBuffer() : m_state(std::make_unique<State>()) {}

CudaGlBuffer::~CudaGlBuffer() {
    if (m_state->mapped) cudaGraphicsUnmapResources(1, &m_state->resource);
    if (m_state->resource) cudaGraphicsUnregisterResource(m_state->resource);
}

bool CudaGlBuffer::available() {
    return true;
}

void CudaGlBuffer::attach(GLuint buffer, size_t bytes, CudaGlAccess access) {
    if (m_state->resource && m_state->buffer == buffer && m_state->bytes == bytes) return;
    if (m_state->resource) {
        check(cudaGraphicsUnregisterResource(m_state->resource), "cudaGraphicsUnregisterResource");
        m_state->resource = nullptr;
    }
    const unsigned flags = access == CudaGlAccess::ReadOnly ? cudaGraphicsRegisterFlagsReadOnly
                           : access == CudaGlAccess::WriteDiscard
                               ? cudaGraphicsRegisterFlagsWriteDiscard
                               : cudaGraphicsRegisterFlagsNone;
    check(cudaGraphicsGLRegisterBuffer(&m_state->resource, buffer, flags),
          "cudaGraphicsGLRegisterBuffer");
    m_state->buffer = buffer;
    m_state->bytes = bytes;
}

void CudaGlBuffer::detach() {
    unmap();
    if (m_state->resource) cudaGraphicsUnregisterResource(m_state->resource);
    m_state->resource = nullptr;
}

bool CudaGlBuffer::attached() const {
    return m_state->resource != nullptr;
}

void* CudaGlBuffer::mapBytes() {
    if (!m_state->resource) throw std::runtime_error("no OpenGL buffer attached for CUDA");
    check(cudaGraphicsMapResources(1, &m_state->resource), "cudaGraphicsMapResources");
    m_state->mapped = true;
    void* ptr = nullptr;
    size_t size = 0;
    check(cudaGraphicsResourceGetMappedPointer(&ptr, &size, m_state->resource),
          "cudaGraphicsResourceGetMappedPointer");
    if (size < m_state->bytes) throw std::runtime_error("mapped OpenGL buffer is too small");
    return ptr;
}

void CudaGlBuffer::unmap() {
    if (!m_state->mapped) return;
    m_state->mapped = false;
    check(cudaGraphicsUnmapResources(1, &m_state->resource), "cudaGraphicsUnmapResources");
}

std::string CudaGlBuffer::memoryLine() {
    size_t freeBytes = 0, total = 0;
    if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess) return "n/a";
    return std::to_string((total - freeBytes) >> 20) + " / " + std::to_string(total >> 20) + " MiB";
}
#else
struct CudaGlBuffer::State {};
CudaGlBuffer::CudaGlBuffer() = default;
CudaGlBuffer::~CudaGlBuffer() = default;
bool CudaGlBuffer::available() {
    return false;
}
void CudaGlBuffer::attach(GLuint, size_t, CudaGlAccess) {
    throw std::runtime_error("this Sepal was built without CUDA");
}
bool CudaGlBuffer::attached() const {
    return false;
}
void* CudaGlBuffer::mapBytes() {
    throw std::runtime_error("this Sepal was built without CUDA");
}
void CudaGlBuffer::unmap() {}
void CudaGlBuffer::detach() {}
std::string CudaGlBuffer::memoryLine() {
    return "n/a";
}
#endif

}  // namespace sepal::render
