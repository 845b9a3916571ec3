#pragma once
// Host-side launching shared by the one-thread-per-point kernels: the grid over n points (or a
// persistent grid of one block per multiprocessor), the kernel's dynamic shared-memory limit,
// and the run-time stride to a template.

#include <atomic>
#include <cstddef>
#include <type_traits>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda::detail {

/// Raises KERNEL's dynamic shared-memory limit to `bytes` on the current device, once per
/// device and size: the attribute is per kernel and device, and apply's lanes launch from
/// several threads, on several GPUs.
template <auto KERNEL>
void allowSharedBytes(size_t bytes) {
    constexpr int kDevices = 64;
    static std::atomic<size_t> allowed[kDevices] = {};
    int device = 0;
    SEPAL_CUDA_CHECK(cudaGetDevice(&device));
    if (device >= 0 && device < kDevices && allowed[device].load() >= bytes) return;
    SEPAL_CUDA_CHECK(
        cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    if (device >= 0 && device < kDevices) {
        size_t seen = allowed[device].load();
        while (seen < bytes && !allowed[device].compare_exchange_weak(seen, bytes)) {
        }
    }
}

/// Launches KERNEL over a.n points, `threads` points per block with `bytes` of dynamic shared
/// memory (the kernel's limit raised first). `what` names the launch in errors ("launch of
/// fusedKernel").
template <auto KERNEL>
void launchPerPoint(const ProjectionArgs& a, int threads, size_t bytes, cudaStream_t stream,
                    const char* what) {
    allowSharedBytes<KERNEL>(bytes);
    const unsigned blocks = unsigned((a.n + threads - 1) / threads);
    KERNEL<<<blocks, threads, bytes, stream>>>(a);
    check(cudaGetLastError(), what, __FILE__, __LINE__);
}

/// Largest dynamic shared memory a block may opt into on the current device (0 when unknown).
inline size_t maxSharedBytesOptin() {
    return currentDeviceLimits().sharedBytes;
}

/// Multiprocessors of the current device, asked once per process (the persistent launches run
/// once per frame and phase in the app; several GPUs are taken to be alike).
inline int multiprocessorCount() {
    static const int count = [] {
        int device = 0, value = 0;
        SEPAL_CUDA_CHECK(cudaGetDevice(&device));
        SEPAL_CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device));
        return value;
    }();
    return count;
}

/// Multiprocessors a persistent launch of a sizes its grid for: a.multiprocessors, or the device's.
inline int multiprocessorsFor(const ProjectionArgs& a) {
    return a.multiprocessors > 0 ? a.multiprocessors : multiprocessorCount();
}

/// Launches KERNEL(a, layout) persistently: warps x 32 threads per block, at most one block per
/// multiprocessor (each warp loops over tiles of 32 points), with `bytes` of shared memory.
template <auto KERNEL, class Layout>
void launchPersistent(const ProjectionArgs& a, const Layout& layout, int warps, size_t bytes,
                      cudaStream_t stream, const char* what) {
    allowSharedBytes<KERNEL>(maxSharedBytesOptin());
    const int sms = multiprocessorsFor(a);
    const size_t tiles = (a.n + 31) / 32;
    const size_t wanted = (tiles + size_t(warps) - 1) / size_t(warps);
    const unsigned blocks = unsigned(wanted < size_t(sms) ? wanted : size_t(sms));
    KERNEL<<<blocks, 32 * warps, bytes, stream>>>(a, layout);
    check(cudaGetLastError(), what, __FILE__, __LINE__);
}

/// Calls launch(std::integral_constant<int, S>{}) for the S among STRIDES that equals stride;
/// does nothing when none does (kernel_limits.h refuses such strides first).
template <int... STRIDES, class Launch>
void withStride(int stride, Launch&& launch) {
    (void)((stride == STRIDES && (launch(std::integral_constant<int, STRIDES>{}), true)) || ...);
}

}  // namespace sepal::cuda::detail
