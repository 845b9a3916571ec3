#pragma once
// Owning CUDA events of the current device, which free themselves: marks in a stream that time
// the work between them without the host waiting for each.

#include <cuda_runtime_api.h>

#include <utility>

#include "cuda/cuda_error.h"

namespace sepal::cuda {

/// An event that can time the work between two of its kind.
class Event {
  public:
    Event() { SEPAL_CUDA_CHECK(cudaEventCreate(&m_event)); }
    ~Event() {
        if (m_event) cudaEventDestroy(m_event);
    }
    /// Takes other's event (so that events can live in a vector).
    Event(Event&& other) noexcept : m_event(std::exchange(other.m_event, nullptr)) {}
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event& operator=(Event&&) = delete;
    /// Marks the point that `stream` (by default the default stream) has reached.
    void record(cudaStream_t stream = nullptr) {
        SEPAL_CUDA_CHECK(cudaEventRecord(m_event, stream));
    }
    /// Seconds from `start`'s mark to this one's (both passed).
    double secondsSince(const Event& start) const {
        float ms = 0.0f;
        SEPAL_CUDA_CHECK(cudaEventElapsedTime(&ms, start.m_event, m_event));
        return double(ms) / 1e3;
    }

  private:
    cudaEvent_t m_event = nullptr;
};

}  // namespace sepal::cuda
