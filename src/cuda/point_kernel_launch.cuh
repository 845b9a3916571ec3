#pragma once
// Host-side launching shared by the one-thread-per-point kernels (fused, tensor): the grid over
// n points, the kernel's dynamic shared-memory limit, and the run-time stride to a template.

#include <cstddef>
#include <type_traits>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda::detail {

/// Launches KERNEL over a.n points, `threads` points per block with `bytes` of dynamic shared
/// memory; the first launch raises the kernel's limit (the attribute is per kernel and process).
/// `what` names the launch in errors ("launch of fusedKernel").
template <auto KERNEL>
void launchPerPoint(const ProjectionArgs& a, int threads, size_t bytes, cudaStream_t stream,
                    const char* what) {
    static bool configured = false;
    if (!configured) {
        SEPAL_CUDA_CHECK(
            cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
        configured = true;
    }
    const unsigned blocks = unsigned((a.n + threads - 1) / threads);
    KERNEL<<<blocks, threads, bytes, stream>>>(a);
    check(cudaGetLastError(), what, __FILE__, __LINE__);
}

/// Calls launch(std::integral_constant<int, S>{}) for the S among STRIDES that equals stride;
/// does nothing when none does (the callers' *Supports functions refuse such strides first).
template <int... STRIDES, class Launch>
void withStride(int stride, Launch&& launch) {
    (void)((stride == STRIDES && (launch(std::integral_constant<int, STRIDES>{}), true)) || ...);
}

}  // namespace sepal::cuda::detail
