#include "cuda/kernel_sample.h"

#include <cstdint>

namespace sepal::cuda {

namespace {

constexpr size_t kSampleCentres = 16;

/// splitmix64: a counter-based generator, so that each row draws from its own stream.
uint64_t sampleMix(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// About N(0, 1): the sum of four uniforms, centred and scaled to unit variance (a bell shape is
/// all the timing needs; the tails do not matter).
float sampleNormal(uint64_t& state) {
    float sum = 0;
    for (int i = 0; i < 4; ++i) sum += float(sampleMix(state) >> 40) * (1.0f / 16777216.0f);
    return (sum - 2.0f) * 1.7320508f;
}

}  // namespace

KernelSample makeKernelSample(size_t n, size_t d, size_t g) {
    KernelSample s;
    uint64_t state = 0x5e9a1;
    std::vector<float> centres(kSampleCentres * d);
    for (float& c : centres) c = 4.0f * sampleNormal(state);
    s.points.resize(n * d);
    const auto rows = static_cast<long long>(n);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < rows; ++i) {
        uint64_t row = 0x51a2b3c4d5e6f708ull ^ (uint64_t(i) * 0x9e3779b97f4a7c15ull);
        const size_t centre = sampleMix(row) % kSampleCentres;
        float* x = s.points.data() + size_t(i) * d;
        for (size_t t = 0; t < d; ++t) x[t] = centres[centre * d + t] + sampleNormal(row);
    }
    s.model.resize(g, d);
    for (size_t j = 0; j < g; ++j) {
        const size_t from = n > 0 ? sampleMix(state) % n : 0;
        float* l = s.model.highRow(j);
        for (size_t t = 0; t < d; ++t)
            l[t] = (n > 0 ? s.points[from * d + t] : 0.0f) + 0.05f * sampleNormal(state);
        s.model.low[2 * j] = l[0] + 0.1f * sampleNormal(state);
        s.model.low[2 * j + 1] = (d > 1 ? l[1] : 0.0f) + 0.1f * sampleNormal(state);
    }
    s.model.touch();
    return s;
}

}  // namespace sepal::cuda
