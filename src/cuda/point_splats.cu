// The CUDA point splats (point_splats.h).
//
// Decomposition: splatKernel is one thread per cell in a grid-stride loop; each covered pixel
// takes two 64-bit atomic adds in global memory (red and green in one word, blue and coverage in
// the other; a pixel overflows past about a million full splats). resolveKernel is one thread
// per pixel. The geometry is CpuSplats's, with every product and sum rounded on its own (no fused
// multiply-add), so that the host reproduces the coverage exactly.

#include <cmath>

#include "cuda/cuda_error.h"
#include "cuda/point_splats.h"

namespace sepal::cuda {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ int floorToInt(float v) {
    const int i = int(v);
    return i - (v < float(i));
}

__global__ void splatKernel(const SplatInput in, float ax, float bx, float ay, float by,
                            unsigned long long* sums) {
    const float half = 0.5f * in.pointSize;
    const float inverseHalf = half > 0 ? 1.0f / half : 0.0f;
    const int w = in.width, h = in.height;
    const uchar4* colours = reinterpret_cast<const uchar4*>(in.rgba);
    const float2* xy = reinterpret_cast<const float2*>(in.xy);
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < in.n;
         i += size_t(gridDim.x) * blockDim.x) {
        const uchar4 c = colours[i];
        if (c.w == 0) continue;
        const float2 p = xy[i];
        const float cx = __fadd_rn(__fmul_rn(p.x, ax), bx);
        const float cy = __fadd_rn(__fmul_rn(p.y, ay), by);
        if (!(cx > -half - 1.0f && cx < float(w) + half)) continue;  // or NaN
        if (!(cy > -half - 1.0f && cy < float(h) + half)) continue;
        const int px0 = max(0, -floorToInt(half - cx)), px1 = min(w - 1, floorToInt(cx + half));
        const int py0 = max(0, -floorToInt(half - cy)), py1 = min(h - 1, floorToInt(cy + half));
        const float units = float(kSplatCoverageUnits) * float(c.w) / 255.0f;
        for (int y = py0; y <= py1; ++y) {
            const float dy = __fmul_rn(__fsub_rn(float(y), cy), inverseHalf);
            for (int x = px0; x <= px1; ++x) {
                const float dx = __fmul_rn(__fsub_rn(float(x), cx), inverseHalf);
                const float r2 = __fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy));
                if (r2 > 1.0f) continue;
                float cover = 1.0f;
                if (r2 > 0.6f) {  // points.frag: 1 - smoothstep(0.6, 1.0, r2) at the rim
                    const float t = __fmul_rn(__fsub_rn(r2, 0.6f), 2.5f);
                    cover = __fsub_rn(
                        1.0f, __fmul_rn(__fmul_rn(t, t), __fsub_rn(3.0f, __fmul_rn(2.0f, t))));
                }
                const unsigned q = unsigned(__float2int_rn(__fmul_rn(cover, units)));
                if (q == 0) continue;
                unsigned long long* s = sums + 2 * (size_t(y) * w + x);
                atomicAdd(s, (static_cast<unsigned long long>(c.x * q) << 32) | (c.y * q));
                atomicAdd(s + 1, (static_cast<unsigned long long>(c.z * q) << 32) | q);
            }
        }
    }
}

__global__ void resolveKernel(const unsigned long long* sums, size_t pixels, float logKeep,
                              uchar4* out) {
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += size_t(gridDim.x) * blockDim.x) {
        const unsigned long long rg = sums[2 * i], bq = sums[2 * i + 1];
        const unsigned q = unsigned(bq & 0xffffffffu);
        if (q == 0) {
            out[i] = make_uchar4(0, 0, 0, 0);
            continue;
        }
        // 1 - (1 - alpha)^(splats), splats = q / units; logKeep = log2(1 - alpha) (-inf: opaque).
        const float a = 1.0f - exp2f(float(q) * (logKeep / float(kSplatCoverageUnits)));
        const float scale = a / (255.0f * float(q));
        auto byte = [](float v) {
            return static_cast<unsigned char>(__float2int_rn(fminf(fmaxf(v, 0.0f), 1.0f) * 255.0f));
        };
        out[i] = make_uchar4(byte(float(rg >> 32) * scale), byte(float(rg & 0xffffffffu) * scale),
                             byte(float(bq >> 32) * scale), byte(a));
    }
}

unsigned blocksFor(size_t work) {
    const size_t wanted = (work + kThreads - 1) / kThreads;
    return unsigned(wanted < 65536 ? (wanted > 0 ? wanted : 1) : 65536);
}

}  // namespace

CudaSplats::~CudaSplats() {
    for (cudaEvent_t e : m_events)
        if (e) cudaEventDestroy(e);
}

void CudaSplats::draw(const SplatInput& in, uint8_t* rgba8, cudaStream_t stream) {
    if (in.width <= 0 || in.height <= 0) return;
    for (cudaEvent_t& e : m_events)
        if (!e) SEPAL_CUDA_CHECK(cudaEventCreate(&e));
    SEPAL_CUDA_CHECK(cudaEventRecord(m_events[0], stream));
    const size_t pixels = size_t(in.width) * size_t(in.height);
    m_sums.reserve(2 * pixels);
    SEPAL_CUDA_CHECK(
        cudaMemsetAsync(m_sums.get(), 0, 2 * pixels * sizeof(unsigned long long), stream));
    // World to pixel in one multiply-add; pixel centres are at +0.5 (CpuSplats::draw).
    const float toPixelX = 0.5f * float(in.width), toPixelY = 0.5f * float(in.height);
    const float ax = in.scale[0] * toPixelX, bx = (in.offset[0] + 1.0f) * toPixelX - 0.5f;
    const float ay = in.scale[1] * toPixelY, by = (in.offset[1] + 1.0f) * toPixelY - 0.5f;
    if (in.n > 0) {
        splatKernel<<<blocksFor(in.n), kThreads, 0, stream>>>(in, ax, bx, ay, by, m_sums.get());
        SEPAL_CUDA_CHECK_LAUNCH("splatKernel");
    }
    const float logKeep = in.alpha >= 1.0f ? -INFINITY : std::log2(1.0f - in.alpha);
    resolveKernel<<<blocksFor(pixels), kThreads, 0, stream>>>(m_sums.get(), pixels, logKeep,
                                                              reinterpret_cast<uchar4*>(rgba8));
    SEPAL_CUDA_CHECK_LAUNCH("resolveKernel");
    SEPAL_CUDA_CHECK(cudaEventRecord(m_events[1], stream));
    SEPAL_CUDA_CHECK(cudaStreamSynchronize(stream));
    SEPAL_CUDA_CHECK(cudaEventElapsedTime(&m_lastMs, m_events[0], m_events[1]));
}

}  // namespace sepal::cuda
