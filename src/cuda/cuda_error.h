#pragma once
// Checked CUDA calls: every runtime call and kernel launch goes through these macros.

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace sepal::cuda {

/// A failed CUDA call: what was called, where (file:line) and the runtime's own words.
class CudaError : public std::runtime_error {
  public:
    /// code: the runtime's error; what: the call or launch that failed; file/line: where.
    CudaError(cudaError_t code, const std::string& what, const char* file, int line)
        : std::runtime_error(message(code, what, file, line)), m_code(code) {}
    /// The runtime's error code (cudaErrorMemoryAllocation for out-of-memory, ...).
    cudaError_t code() const { return m_code; }

  private:
    static std::string message(cudaError_t code, const std::string& what, const char* file,
                               int line) {
        std::string text = "CUDA error in " + what + " at " + file + ":" + std::to_string(line) +
                           ": " + cudaGetErrorString(code) + " (" + std::to_string(int(code)) + ")";
        if (code == cudaErrorMemoryAllocation)
            text +=
                "; the GPU has too little free memory: close other GPU programs, use fewer "
                "points, or use --backend cpu";
        if (code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver)
            text += "; no usable CUDA device: use --backend cpu";
        if (code == cudaErrorNoKernelImageForDevice)
            text +=
                "; this GPU is older than the architectures Sepal was built for "
                "(SEPAL_CUDA_ARCHITECTURES)";
        return text;
    }
    cudaError_t m_code;
};

/// Throws CudaError when `code` is not cudaSuccess.
inline void check(cudaError_t code, const char* what, const char* file, int line) {
    if (code != cudaSuccess) {
        (void)cudaGetLastError();  // clear the sticky-free error so later calls start clean
        throw CudaError(code, what, file, line);
    }
}

}  // namespace sepal::cuda

/// Runs a CUDA runtime call and throws sepal::cuda::CudaError when it fails.
#define SEPAL_CUDA_CHECK(call) ::sepal::cuda::check((call), #call, __FILE__, __LINE__)
/// Checks the launch just made (configuration errors) without waiting for the kernel.
#define SEPAL_CUDA_CHECK_LAUNCH(name) \
    ::sepal::cuda::check(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)
