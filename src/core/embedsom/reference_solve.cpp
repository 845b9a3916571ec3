#include "core/embedsom/reference_solve.h"

#include <cassert>
#include <cmath>

namespace sepal {

template <int GROUP>
bool solveInPairGroups(const float* x, const LandmarkModel& model, const uint32_t* idx,
                       const float* score, int topn, float adjust, float* y,
                       const PairConstants* pairs) {
    assert(!pairs || (pairs->landmarks() == model.count() && pairs->adjust() == adjust));
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
        const uint32_t u = idx[i];
        const float* lu = model.highRow(u);
        const float* pairRow = pairs ? pairs->row(u) : nullptr;
        for (int j0 = i + 1; j0 < topn; j0 += GROUP) {
            // D's sums for up to GROUP pairs, each in the reference's order and
            // roundings (the core is built without contraction: no fused multiply-add).
            const int count = topn - j0 < GROUP ? topn - j0 : GROUP;
            const float* lv[GROUP];
            for (int k = 0; k < GROUP; ++k) lv[k] = model.highRow(idx[j0 + (k < count ? k : 0)]);
            float sqd[GROUP] = {}, dot[GROUP] = {};
            for (size_t t = 0; t < d; ++t) {
                const float xu = x[t] - lu[t];
                for (int k = 0; k < GROUP; ++k) {
                    const float e = lv[k][t] - lu[t];
                    sqd[k] += e * e;
                    dot[k] += xu * e;
                }
            }
            // The pairs' terms in the pairs' order, as the reference adds them.
            for (int k = 0; k < count; ++k) {
                const uint32_t v = idx[j0 + k];
                if (sqd[k] == 0.0f) continue;
                const float D = dot[k] / sqd[k];
                const float hx = low[2 * v] - low[2 * u], hy = low[2 * v + 1] - low[2 * u + 1];
                const float hp = hx * hx + hy * hy;
                if (hp < 1e-10f) continue;
                // The table's f_uv is this power of the same hp (the pair's order only changes
                // the differences' signs), and a power a pair took a fifth of this solve's time.
                const float f =
                    pairRow ? pairRow[2 * pairs->slot(v) + 1] : std::pow(1.0f + hp, -adjust);
                const float s = score[i] * score[j0 + k] * f * std::exp(-(D - 0.5f) * (D - 0.5f));
                const float sh = s / hp;
                a00 += sh * hx * hx;
                a01 += sh * hx * hy;
                a11 += sh * hy * hy;
                const float along = s * (D + (hx * low[2 * u] + hy * low[2 * u + 1]) / hp);
                b0 += along * hx;
                b1 += along * hy;
            }
        }
    }
    const float det = a00 * a11 - a01 * a01;
    y[0] = (b0 * a11 - b1 * a01) / det;
    y[1] = (a00 * b1 - a01 * b0) / det;
    return std::isfinite(y[0]) && std::isfinite(y[1]);
}

template bool solveInPairGroups<1>(const float*, const LandmarkModel&, const uint32_t*,
                                   const float*, int, float, float*, const PairConstants*);
template bool solveInPairGroups<4>(const float*, const LandmarkModel&, const uint32_t*,
                                   const float*, int, float, float*, const PairConstants*);

bool solveLikeReference(const float* x, const LandmarkModel& model, const uint32_t* idx,
                        const float* score, int topn, float adjust, float* y,
                        const PairConstants* pairs) {
    // Four pairs' sums side by side: independent chains, so that the additions of one wait on
    // the pipeline while the others proceed (a pair at a time, every addition waited on the one
    // before it; the app's default recipe sends about 4 % of the cells here). Eight were slower
    // at k 16 (partly filled groups).
    return solveInPairGroups<4>(x, model, idx, score, topn, adjust, y, pairs);
}

}  // namespace sepal
