#pragma once
// Owning device and pinned-host buffers that grow on demand and free themselves.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_error.h"

namespace sepal::cuda {

/// A device allocation of T; reserve() keeps the old one when it is large enough.
template <class T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    /// Ensures room for `count` elements (contents are lost when it grows).
    void reserve(size_t count) {
        if (count <= m_capacity) return;
        release();
        void* p = nullptr;
        SEPAL_CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
        m_data = static_cast<T*>(p);
        m_capacity = count;
    }
    /// Frees the memory.
    void release() {
        if (m_data) cudaFree(m_data);
        m_data = nullptr;
        m_capacity = 0;
    }
    /// Device pointer (null before reserve()).
    T* get() const { return m_data; }
    /// Elements available.
    size_t capacity() const { return m_capacity; }
    /// Exchanges the allocations of this buffer and `other`.
    void swap(DeviceBuffer& other) noexcept {
        std::swap(m_data, other.m_data);
        std::swap(m_capacity, other.m_capacity);
    }

  private:
    T* m_data = nullptr;
    size_t m_capacity = 0;
};

/// A page-locked host allocation of T, so that copies run asynchronously at full speed.
template <class T>
class PinnedBuffer {
  public:
    PinnedBuffer() = default;
    ~PinnedBuffer() { release(); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    /// Ensures room for `count` elements (contents are lost when it grows).
    void reserve(size_t count) {
        if (count <= m_capacity) return;
        release();
        void* p = nullptr;
        SEPAL_CUDA_CHECK(cudaMallocHost(&p, count * sizeof(T)));
        m_data = static_cast<T*>(p);
        m_capacity = count;
    }
    /// Frees the memory.
    void release() {
        if (m_data) cudaFreeHost(m_data);
        m_data = nullptr;
        m_capacity = 0;
    }
    /// Host pointer (null before reserve()).
    T* get() const { return m_data; }

  private:
    T* m_data = nullptr;
    size_t m_capacity = 0;
};

/// Copies `from` into `to`, reserved to its size (at least one element).
template <class T, class Allocator>
void uploadVector(DeviceBuffer<T>& to, const std::vector<T, Allocator>& from) {
    to.reserve(from.size() > 0 ? from.size() : 1);
    SEPAL_CUDA_CHECK(
        cudaMemcpy(to.get(), from.data(), from.size() * sizeof(T), cudaMemcpyHostToDevice));
}

}  // namespace sepal::cuda
