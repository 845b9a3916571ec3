#pragma once
// CUDA-OpenGL interop for the positions buffer: the CUDA projector writes the 2D positions
// straight into the vertex buffer the point renderer draws (register once, map, project, unmap).
// Only functional in builds with CUDA; elsewhere available() is false and nothing else is called.

#include <epoxy/gl.h>

#include <cstddef>
#include <memory>
#include <string>

namespace sepal::render {

/// What CUDA does with a registered buffer's contents while it is mapped.
enum class CudaGlAccess {
    ReadWrite,    ///< reads and writes
    ReadOnly,     ///< reads only
    WriteDiscard  ///< overwrites all of it (the projected positions, a picture's pixels)
};

/// A GL buffer registered with CUDA; map() gives a device pointer valid until unmap().
class CudaGlBuffer {
  public:
    CudaGlBuffer();
    ~CudaGlBuffer();
    CudaGlBuffer(const CudaGlBuffer&) = delete;
    CudaGlBuffer& operator=(const CudaGlBuffer&) = delete;

    /// True when this build has CUDA (the interop can be used).
    static bool available();
    /// Registers `buffer` for `access` unless it is the one registered with `bytes` already;
    /// throws std::runtime_error (a CUDA error) on failure.
    void attach(GLuint buffer, size_t bytes, CudaGlAccess access = CudaGlAccess::ReadWrite);
    /// True while a buffer is registered.
    bool attached() const;
    /// Forgets the registration (call before the buffer's storage is reallocated).
    void detach();
    /// Maps the buffer for CUDA and returns its device pointer (bytes as attached).
    void* mapBytes();
    /// mapBytes() as floats (the positions).
    float* map() { return static_cast<float*>(mapBytes()); }
    /// Unmaps it so OpenGL can draw it.
    void unmap();
    /// "used / total MiB" of the current device, or "n/a".
    static std::string memoryLine();

  private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace sepal::render
