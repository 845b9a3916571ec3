// The plain implementation of embedsom.md, step by step, one point at a time; the tests' oracle.

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/embedsom/embedsom.h"
#include "core/embedsom/fallback.h"
#include "core/embedsom/projection_input.h"
#include "core/embedsom/reference_solve.h"

namespace sepal {

namespace {

class ReferenceProjector final : public Projector {
  public:
    std::string name() const override { return "reference"; }

    ProjectionReport project(const float* points, size_t n, size_t d, const LandmarkModel& model,
                             const EmbedParams& params, float* out) override {
        const ScoreSetup setup = checkProjectionInput(points, n, d, model, params, out);
        ProjectionReport report;
        for (size_t p = 0; p < n; ++p) {
            const float* x = points + p * d;
            float* y = out + 2 * p;
            if (!allFinite(x, d)) {
                placeNonFinitePoint(x, model, setup, y);
                ++report.nonFinitePoints;
            } else if (!projectPoint(x, model, setup, params.adjust, y)) {
                ++report.degeneratePoints;
            }
        }
        return report;
    }

  private:
    // Returns false when the point needed the fallback placement.
    bool projectPoint(const float* x, const LandmarkModel& model, const ScoreSetup& setup,
                      float adjust, float* y) {
        const size_t g = model.count(), d = model.dim;
        const float* low = model.low.data();
        // Step 1: squared distances in difference form; topnn smallest, ties by index.
        m_dist.resize(g);
        for (size_t j = 0; j < g; ++j) {
            const float* l = model.highRow(j);
            float a = 0.0f;
            for (size_t t = 0; t < d; ++t) {
                const float diff = x[t] - l[t];
                a += diff * diff;
            }
            m_dist[j] = {a, static_cast<uint32_t>(j)};
        }
        std::partial_sort(m_dist.begin(), m_dist.begin() + setup.topnn, m_dist.end());
        m_a.resize(setup.topnn);
        m_idx.resize(setup.topnn);
        m_score.resize(setup.topn);
        for (int i = 0; i < setup.topnn; ++i) m_a[i] = m_dist[i].first, m_idx[i] = m_dist[i].second;

        // Step 2: scores.
        if (!computeScores(m_a.data(), setup, m_score.data())) {
            neighbourMean(m_idx.data(), nullptr, setup.topn, low, y);
            return false;
        }

        // Steps 3 and 4: the 2x2 least-squares system, solved by Cramer's rule; the guard is
        // ours (the reference has none).
        if (solveLikeReference(x, model, m_idx.data(), m_score.data(), setup.topn, adjust, y))
            return true;
        neighbourMean(m_idx.data(), m_score.data(), setup.topn, low, y);
        return false;
    }

    std::vector<std::pair<float, uint32_t>> m_dist;
    std::vector<float> m_a, m_score;
    std::vector<uint32_t> m_idx;
};

}  // namespace

std::unique_ptr<Projector> makeReferenceProjector() {
    return std::make_unique<ReferenceProjector>();
}

}  // namespace sepal
