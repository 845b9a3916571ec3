#include "core/embedsom/reference_solve.h"

#include <cmath>

namespace sepal {

bool solveLikeReference(const float* x, const LandmarkModel& model, const uint32_t* idx,
                        const float* score, int topn, float adjust, float* y) {
    const size_t d = model.dim;
    const float* low = model.low.data();
    float a00 = 0.0f, a01 = 0.0f, a11 = 0.0f, b0 = 0.0f, b1 = 0.0f;
    for (int i = 0; i < topn; ++i) {
        const uint32_t u = idx[i];
        const float gs = score[i] * 1e-5f;
        a00 += gs;
        a11 += gs;
        b0 += gs * low[2 * u];
        b1 += gs * low[2 * u + 1];
    }
    for (int i = 0; i < topn; ++i) {
        for (int j = i + 1; j < topn; ++j) {
            const uint32_t u = idx[i], v = idx[j];
            const float* lu = model.highRow(u);
            const float* lv = model.highRow(v);
            float sqd = 0.0f, dot = 0.0f;
            for (size_t t = 0; t < d; ++t) {
                const float e = lv[t] - lu[t];
                sqd += e * e;
                dot += (x[t] - lu[t]) * e;
            }
            if (sqd == 0.0f) continue;
            const float D = dot / sqd;
            const float hx = low[2 * v] - low[2 * u], hy = low[2 * v + 1] - low[2 * u + 1];
            const float hp = hx * hx + hy * hy;
            if (hp < 1e-10f) continue;
            const float s = score[i] * score[j] * std::pow(1.0f + hp, -adjust) *
                            std::exp(-(D - 0.5f) * (D - 0.5f));
            const float sh = s / hp;
            a00 += sh * hx * hx;
            a01 += sh * hx * hy;
            a11 += sh * hy * hy;
            const float f = s * (D + (hx * low[2 * u] + hy * low[2 * u + 1]) / hp);
            b0 += f * hx;
            b1 += f * hy;
        }
    }
    const float det = a00 * a11 - a01 * a01;
    y[0] = (b0 * a11 - b1 * a01) / det;
    y[1] = (a00 * b1 - a01 * b0) / det;
    return std::isfinite(y[0]) && std::isfinite(y[1]);
}

}  // namespace sepal
