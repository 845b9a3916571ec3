#include "core/embedsom/pair_constants.h"

#include <cmath>
#include <cstring>

namespace sepal {

uint64_t modelFingerprint(const LandmarkModel& model) {
    // Four independent lanes keep the loop fast; the digest only has to notice edits.
    uint64_t h[4] = {1469598103934665603ULL, 7, 11, 13};
    auto mix = [&h](const std::vector<float>& v) {
        const size_t n = v.size();
        for (size_t i = 0; i < n; ++i) {
            uint32_t bits;
            std::memcpy(&bits, &v[i], 4);
            h[i & 3] = (h[i & 3] ^ bits) * 1099511628211ULL;
        }
    };
    mix(model.high);
    mix(model.low);
    return h[0] ^ (h[1] << 1) ^ (h[2] << 2) ^ (h[3] << 3) ^ model.high.size();
}

void PairConstants::update(const LandmarkModel& model, float adjust) {
    const size_t g = model.count(), d = model.dim;
    if (m_valid && g == m_g && d == m_d && adjust == m_adjust &&
        model.highVersion == m_highVersion && model.lowVersion == m_lowVersion) {
        if (modelFingerprint(model) == m_fingerprint) return;
    }
    m_values.assign(2 * g * g, 0.0f);
    const float* low = model.low.data();
    const long long gl = static_cast<long long>(g);
#pragma omp parallel for schedule(static)
    for (long long ui = 0; ui < gl; ++ui) {
        const size_t u = static_cast<size_t>(ui);
        const float* lu = model.highRow(u);
        float* out = m_values.data() + 2 * u * g;
        for (size_t v = 0; v < g; ++v) {
            const float* lv = model.highRow(v);
            float sqd = 0.0f;
            for (size_t t = 0; t < d; ++t) {
                const float e = lv[t] - lu[t];
                sqd += e * e;
            }
            const float hx = low[2 * v] - low[2 * u], hy = low[2 * v + 1] - low[2 * u + 1];
            const float hp = hx * hx + hy * hy;
            if (sqd == 0.0f || hp < 1e-10f) continue;
            out[2 * v] = 1.0f / (2.0f * sqd);
            out[2 * v + 1] = std::pow(1.0f + hp, -adjust);
        }
    }
    m_g = g;
    m_d = d;
    m_adjust = adjust;
    m_highVersion = model.highVersion;
    m_lowVersion = model.lowVersion;
    m_fingerprint = modelFingerprint(model);
    m_valid = true;
}

}  // namespace sepal
