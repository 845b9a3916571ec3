#include "cuda/tensor_landmarks.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "cuda/cuda_error.h"

namespace sepal::cuda {
namespace {

/// v rounded to TF32 (10 fraction bits) to nearest, ties away from zero, like cvt.rna.tf32.f32.
float roundToTf32(float v) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;
    std::memcpy(&v, &bits, 4);
    return v;
}

/// The IEEE binary16 bits of v rounded to nearest, ties to even (as cvt.rn.f16.f32), subnormals
/// included; values beyond the range become infinity.
uint16_t halfBits(float v) {
    uint32_t x = 0;
    std::memcpy(&x, &v, 4);
    const auto sign = uint16_t((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    if (x > 0x7f800000u) return uint16_t(sign | 0x7e00u);  // NaN
    if (x < 0x38800000u) {
        // Below 2^-14: a multiple of 2^-24, rounded to even by the default rounding mode.
        const float magnitude = std::fabs(v) * 16777216.0f;
        return uint16_t(sign | uint16_t(std::nearbyint(magnitude)));
    }
    const uint32_t rebased = x - 0x38000000u;  // exponent bias 127 -> 15
    const uint32_t rounded = (rebased + 0xfffu + ((rebased >> 13) & 1u)) >> 13;
    return uint16_t(sign | (rounded >= 0x7c00u ? 0x7c00u : rounded));
}

}  // namespace

void TensorLandmarkBuffers::upload(const float* high, size_t g, size_t d, int stride, int tileWidth,
                                   cudaStream_t stream, bool shuffled) {
    const size_t gPad = (g + tileWidth - 1) / tileWidth * tileWidth;
    m_centre.assign(tensorStride(stride), 0.0f);
    for (size_t t = 0; t < d; ++t) {
        double sum = 0;
        for (size_t j = 0; j < g; ++j) sum += high[j * d + t];
        m_centre[t] = float(sum / double(g));
    }
    // A fixed shuffle: the kernel's landmark groups are columns of its tiles, and a map's
    // neighbours in index order would crowd into few of them and loosen its bound.
    m_perm.resize(gPad);
    std::iota(m_perm.begin(), m_perm.begin() + g, uint16_t(0));
    if (shuffled) std::shuffle(m_perm.begin(), m_perm.begin() + g, std::mt19937(0x5e9a1u));
    std::fill(m_perm.begin() + g, m_perm.end(), uint16_t(0));
    // Rows in the order the kernel's mma.sync B fragments take them (tensorFragmentIndex), so that
    // a warp reads a whole tile with coalesced 16-byte loads.
    const int ks = tensorStride(stride);
    m_rows.assign(gPad * ks, 0.0f);
    m_norms.assign(gPad, FLT_MAX);
    float radius2 = 0;
    for (size_t i = 0; i < g; ++i) {
        const float* row = high + size_t(m_perm[i]) * d;
        float norm = 0;
        for (size_t t = 0; t < d; ++t) {
            const float c = row[t] - m_centre[t];
            norm = std::fma(c, c, norm);
            m_rows[tensorFragmentIndex(i, t, ks)] = roundToTf32(c);
        }
        m_norms[i] = norm;
        radius2 = std::max(radius2, norm);
    }
    // The FP16 copy (index order only): scaled by a power of two that puts the radius in
    // [8, 16), far below FP16's largest value, so that points up to 2^11 radii from the centre
    // fit too; subnormals lose digits only below 2^-18 radii.
    const float radius = std::sqrt(radius2);
    float scale = 0, reach = -1;
    if (!shuffled) {
        int exponent = 0;
        std::frexp(radius > 0 ? radius : 1.0f, &exponent);
        const int power = std::clamp(4 - exponent, -60, 60);
        scale = std::ldexp(1.0f, power);
        if (radius * scale < 16.0f) reach = std::ldexp(32768.0f, -power);
        const int kw = halfFragmentWidth(stride);
        m_halves.assign(gPad * kw, 0);
        for (size_t i = 0; i < g; ++i)
            for (size_t t = 0; t < d; ++t)
                m_halves[halfFragmentIndex(i, t, kw)] =
                    halfBits((high[i * d + t] - m_centre[t]) * scale);
        m_halvesDev.reserve(m_halves.size());
        SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_halvesDev.get(), m_halves.data(), m_halves.size() * 2,
                                         cudaMemcpyHostToDevice, stream));
    }
    m_rowsDev.reserve(m_rows.size());
    m_normsDev.reserve(gPad);
    m_centreDev.reserve(m_centre.size());
    m_permDev.reserve(gPad);
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_rowsDev.get(), m_rows.data(), m_rows.size() * 4,
                                     cudaMemcpyHostToDevice, stream));
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_normsDev.get(), m_norms.data(), gPad * 4,
                                     cudaMemcpyHostToDevice, stream));
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_centreDev.get(), m_centre.data(), m_centre.size() * 4,
                                     cudaMemcpyHostToDevice, stream));
    SEPAL_CUDA_CHECK(
        cudaMemcpyAsync(m_permDev.get(), m_perm.data(), gPad * 2, cudaMemcpyHostToDevice, stream));
    m_view.rows = m_rowsDev.get();
    m_view.norms = m_normsDev.get();
    m_view.perm = m_permDev.get();
    m_view.centre = m_centreDev.get();
    m_view.gPad = int(gPad);
    m_view.halves = shuffled ? nullptr : m_halvesDev.get();
    m_view.halfScale = scale;
    m_view.halfReach = reach;
    // Rounded up so that float rounding of the norm cannot make the bound too small.
    m_view.radius = std::sqrt(radius2) * (1.0f + 1e-5f) + 1e-30f;
}

}  // namespace sepal::cuda
