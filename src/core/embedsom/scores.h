#pragma once
// Step 2 of embedsom.md: neighbour scores from the sorted distances, shared by every CPU path.

#include <cmath>
#include <cstddef>

namespace sepal {

/// The per-call constants of the scoring step.
struct ScoreSetup {
    int topn = 0;        ///< neighbours that get a score: min(k, g)
    int topnn = 0;       ///< neighbours looked up: topn + 1 when topn < g (for normalisation)
    float boost = 1.0f;  ///< max(exp(-smooth - 1), 1e-5)
};

/// Resolves topn, topnn and boost for a validated k, g landmarks and `smooth`.
inline ScoreSetup makeScoreSetup(int k, size_t g, float smooth) {
    ScoreSetup s;
    s.topn = static_cast<int>(static_cast<size_t>(k) < g ? static_cast<size_t>(k) : g);
    s.topnn = static_cast<size_t>(s.topn) < g ? s.topn + 1 : s.topn;
    s.boost = std::fmax(std::exp(-smooth - 1.0f), 1e-5f);
    return s;
}

/// a: topnn squared distances, ascending; writes topn scores. Returns false when the point is
/// degenerate (all distances equal, k+1 duplicates, or a score that is not finite): the caller
/// then places it by a fallback instead of the least-squares solve.
inline bool computeScores(const float* a, const ScoreSetup& s, float* score) {
    float sumW = 0.0f, sumRW = 0.0f, sumR2W = 0.0f;
    for (int i = 0; i < s.topnn; ++i) {
        const float r = std::sqrt(a[i]);
        const float w = 1.0f / static_cast<float>(i + 1);
        sumW += w;
        sumRW += r * w;
        sumR2W += r * r * w;
    }
    const float mean = sumRW / sumW;
    const float var = sumR2W / sumW - mean * mean;
    if (!(var > 0.0f)) return false;
    const float sdinv = s.boost / std::sqrt(var);
    const bool normalise = s.topn < s.topnn;
    const float rLast = std::sqrt(a[s.topnn - 1]);
    if (normalise && !(rLast > 0.0f)) return false;
    const float nmax = normalise ? 10.0f / rLast : 0.0f;
    bool anyPositive = false;
    for (int i = 0; i < s.topn; ++i) {
        const float r = std::sqrt(a[i]);
        float sc = std::exp((mean - r) * sdinv);
        if (normalise) sc *= 1.0f - std::exp(r * nmax - 10.0f);
        if (!std::isfinite(sc)) return false;
        anyPositive |= sc > 0.0f;
        score[i] = sc;
    }
    return anyPositive;
}

}  // namespace sepal
