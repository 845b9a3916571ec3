#include "core/embedsom/pair_constants.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/embedsom/locality_rank.h"

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

namespace {
/// The constants of ordered pair (u, v), written at out[0..1] (both 0 for skipped pairs).
void pairEntry(const LandmarkModel& model, float adjust, size_t u, size_t v, float* out) {
    const float* lu = model.highRow(u);
    const float* lv = model.highRow(v);
    float sqd = 0.0f;
    for (size_t t = 0; t < model.dim; ++t) {
        const float e = lv[t] - lu[t];
        sqd += e * e;
    }
    const float* low = model.low.data();
    const float hx = low[2 * v] - low[2 * u], hy = low[2 * v + 1] - low[2 * u + 1];
    const float hp = hx * hx + hy * hy;
    out[0] = out[1] = 0.0f;
    if (sqd == 0.0f || hp < 1e-10f) return;
    out[0] = 1.0f / (2.0f * sqd);
    out[1] = std::pow(1.0f + hp, -adjust);
}
/// The constants of (u, v) and of (v, u) in the g x g table `values` by `slot`: the same bits
/// (each difference only changes sign, and its square and the order of the sums stay), so one
/// computation serves both.
void setPair(const LandmarkModel& model, float adjust, size_t u, size_t v, const uint32_t* slot,
             float* values) {
    const size_t g = model.count();
    float* uv = values + 2 * (size_t(slot[u]) * g + slot[v]);
    pairEntry(model, adjust, u, v, uv);
    float* vu = values + 2 * (size_t(slot[v]) * g + slot[u]);
    vu[0] = uv[0];
    vu[1] = uv[1];
}
}  // namespace

void PairConstants::update(const LandmarkModel& model, float adjust) {
    const size_t g = model.count(), d = model.dim;
    const bool sameShape = m_valid && g == m_g && d == m_d && adjust == m_adjust;
    if (sameShape && model.highVersion == m_highVersion && model.lowVersion == m_lowVersion) {
        if (modelFingerprint(model) == m_fingerprint) return;
    }
    // Only 2D positions moved (a drag): the rows and columns of the moved landmarks change.
    if (sameShape && model.high == m_high && m_low.size() == model.low.size()) {
        std::vector<size_t> moved;
        for (size_t u = 0; u < g; ++u)
            if (model.low[2 * u] != m_low[2 * u] || model.low[2 * u + 1] != m_low[2 * u + 1])
                moved.push_back(u);
        if (moved.size() * 8 < g) {
            for (size_t u : moved)
                for (size_t v = 0; v < g; ++v)
                    setPair(model, adjust, u, v, m_slot.data(), m_values.data());
            remember(model);
            return;
        }
    }
    m_values.assign(2 * g * g, 0.0f);  // the diagonal stays 0: a landmark with itself is skipped
    m_slot.resize(g);
    if (pairTermsByRankOn() && g <= kMaxPairTableLandmarks) {  // ranks are 16-bit
        const std::vector<uint16_t> rank = localityRanks(model.high.data(), g, d);
        std::copy(rank.begin(), rank.end(), m_slot.begin());
    } else {
        std::iota(m_slot.begin(), m_slot.end(), 0u);
    }
    const long long gl = static_cast<long long>(g);
#pragma omp parallel for schedule(dynamic, 8)
    for (long long ui = 0; ui < gl; ++ui) {
        const size_t u = static_cast<size_t>(ui);
        for (size_t v = u + 1; v < g; ++v)
            setPair(model, adjust, u, v, m_slot.data(), m_values.data());
    }
    m_g = g;
    m_d = d;
    m_adjust = adjust;
    remember(model);
    m_valid = true;
}

void PairConstants::remember(const LandmarkModel& model) {
    m_high = model.high;
    m_low = model.low;
    m_highVersion = model.highVersion;
    m_lowVersion = model.lowVersion;
    m_fingerprint = modelFingerprint(model);
}

}  // namespace sepal
