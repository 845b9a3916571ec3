#include "core/embedsom/fast_point.h"

#include <cmath>

#include "core/embedsom/fallback.h"

namespace sepal {

bool projectFastPoint(const float* a, const uint32_t* idx, const ScoreSetup& setup,
                      const PairConstants& pairs, const float* low, FastPointScratch& scratch,
                      float* y) {
    const int topn = setup.topn;
    float* score = scratch.score.data();
    if (!computeScores(a, setup, score)) {
        neighbourMean(idx, nullptr, topn, low, y);
        return false;
    }
    float* lx = scratch.lx.data();
    float* ly = scratch.ly.data();
    float a00 = 0.0f, a01 = 0.0f, a11 = 0.0f, b0 = 0.0f, b1 = 0.0f;
    for (int i = 0; i < topn; ++i) {
        lx[i] = low[2 * idx[i]];
        ly[i] = low[2 * idx[i] + 1];
        const float gs = score[i] * 1e-5f;
        a00 += gs;
        a11 += gs;
        b0 += gs * lx[i];
        b1 += gs * ly[i];
    }
    for (int i = 0; i < topn; ++i) {
        const float* cf = pairs.row(idx[i]);
        const float ai = a[i], si = score[i], ux = lx[i], uy = ly[i];
        for (int j = i + 1; j < topn; ++j) {
            const uint32_t v = idx[j];
            // D - 0.5 = (a_u - a_v) c_uv; skipped pairs have c = f = 0 and add nothing.
            const float t = (ai - a[j]) * cf[2 * v];
            const float s = si * score[j] * cf[2 * v + 1] * std::exp(-t * t);
            const float hx = lx[j] - ux, hy = ly[j] - uy;
            const float hp = hx * hx + hy * hy;
            a00 += s * hx * hx;
            a01 += s * hx * hy;
            a11 += s * hy * hy;
            const float w = s * ((0.5f + t) * hp + hx * ux + hy * uy);
            b0 += w * hx;
            b1 += w * hy;
        }
    }
    const float det = a00 * a11 - a01 * a01;
    y[0] = (b0 * a11 - b1 * a01) / det;
    y[1] = (a00 * b1 - a01 * b0) / det;
    if (std::isfinite(y[0]) && std::isfinite(y[1])) return true;
    neighbourMean(idx, score, topn, low, y);
    return false;
}

}  // namespace sepal
