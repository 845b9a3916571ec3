// Preparation kernels: padding rows to the device stride, gathering padded rows, and the per-pair
// terms (c_uv, w_uv).
//
// Decomposition: padRows uses one thread per output value (n x stride); gatherRows one thread
// per four values of an output row (the stride is a multiple of 4); pairTerms uses one
// thread per landmark pair (u >= v) in 16 x 16 blocks over the g x g square (the upper half idles)
// and computes |L_u - L_v|^2 in difference form, in dimension order like the reference.
// No shared memory. Limits: n * stride < 2^63; g < 65536 (the triangular index is 32-bit).

#include "cuda/cuda_error.h"
#include "cuda/embedsom_device.cuh"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda {
namespace {

__global__ void padRowsKernel(const float* src, size_t n, int d, float* dst, int stride) {
    const size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= n * stride) return;
    const size_t row = e / stride;
    const int col = int(e % stride);
    dst[e] = col < d ? src[row * d + col] : 0.0f;
}

template <class Index>
__global__ void gatherRowsKernel(const float4* src, const Index* rows, size_t n, int quads,
                                 float4* dst) {
    const size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= n * quads) return;
    const size_t row = e / quads;
    dst[e] = src[size_t(rows[row]) * quads + e % quads];
}

__global__ void pairTermsKernel(const float* landmarks, const float* low, int g, int stride,
                                float adjust, float2* pairTerms) {
    const int u = blockIdx.y * blockDim.y + threadIdx.y;
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= g || v > u) return;
    const float* lu = landmarks + size_t(u) * stride;
    const float* lv = landmarks + size_t(v) * stride;
    float sqd = 0;
    for (int t = 0; t < stride; ++t) {
        const float e = lv[t] - lu[t];
        sqd = detail::addSquare(sqd, e);
    }
    const float hx = low[2 * v] - low[2 * u], hy = low[2 * v + 1] - low[2 * u + 1];
    const float hp = hx * hx + hy * hy;
    const bool skip = !(sqd > 0.0f) || hp < 1e-10f;
    pairTerms[detail::pairIndex(u, v)] =
        skip ? make_float2(0, 0)
             : make_float2(1.0f / (2.0f * sqd), detail::adjustFactor(hp, adjust) / hp);
}

}  // namespace

int paddedDim(size_t d) {
    for (int s : {4, 8, 16, 32, 64, 128})
        if (d <= size_t(s)) return s;
    return int((d + 3) / 4 * 4);
}

void launchPadRows(const float* src, size_t n, int d, float* dst, int stride, cudaStream_t stream) {
    if (n == 0) return;
    const size_t total = n * size_t(stride);
    const unsigned blocks = unsigned((total + 255) / 256);
    padRowsKernel<<<blocks, 256, 0, stream>>>(src, n, d, dst, stride);
    SEPAL_CUDA_CHECK_LAUNCH("padRowsKernel");
}

namespace {

/// launchGatherRows for either width of index.
template <class Index>
void gatherRows(const float* src, const Index* rows, size_t n, int stride, float* dst,
                cudaStream_t stream) {
    if (n == 0) return;
    const int quads = stride / 4;
    const size_t total = n * size_t(quads);
    const unsigned blocks = unsigned((total + 255) / 256);
    gatherRowsKernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const float4*>(src), rows, n,
                                                 quads, reinterpret_cast<float4*>(dst));
    SEPAL_CUDA_CHECK_LAUNCH("gatherRowsKernel");
}

}  // namespace

void launchGatherRows(const float* src, const size_t* rows, size_t n, int stride, float* dst,
                      cudaStream_t stream) {
    gatherRows(src, rows, n, stride, dst, stream);
}

void launchGatherRows(const float* src, const uint32_t* rows, size_t n, int stride, float* dst,
                      cudaStream_t stream) {
    gatherRows(src, rows, n, stride, dst, stream);
}

void launchPairTerms(const float* landmarks, const float* low, int g, int stride, float adjust,
                     float2* pairTerms, cudaStream_t stream) {
    if (g == 0) return;
    const dim3 threads(16, 16);
    const dim3 blocks(unsigned((g + 15) / 16), unsigned((g + 15) / 16));
    pairTermsKernel<<<blocks, threads, 0, stream>>>(landmarks, low, g, stride, adjust, pairTerms);
    SEPAL_CUDA_CHECK_LAUNCH("pairTermsKernel");
}

}  // namespace sepal::cuda
