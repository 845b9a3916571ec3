#include "core/train/som_trainer.h"

#include <algorithm>
#include <cmath>

#include "core/model/landmark_edit.h"

namespace sepal {

void pullLandmark(LandmarkModel& model, size_t j, const float* x, float w) {
    if (highLocked(model, j)) return;
    float* h = model.highRow(j);
    for (size_t t = 0; t < model.dim; ++t) h[t] += w * (x[t] - h[t]);
}

float neighbourhoodWeight(Neighbourhood shape, float dist, float radius) {
    if (shape == Neighbourhood::Square) return dist <= radius ? 1.0f : 0.0f;
    if (radius <= 0.0f) return dist <= 0.0f ? 1.0f : 0.0f;
    const float w = std::exp(-dist * dist / (2.0f * radius * radius));
    return w < 1e-3f ? 0.0f : w;
}

SomTrainer::SomTrainer(const SomParams& params, NearestSearch& search)
    : m_params(params),
      m_search(search),
      m_stream(params.seed, params.sampleSize),
      m_radiusStart(params.radiusStart) {}

double SomTrainer::progress() const {
    if (m_manual) return -1.0;
    if (m_total == 0) return 0.0;
    return std::min(1.0, static_cast<double>(m_iter) / static_cast<double>(m_total));
}

void SomTrainer::setManual(float radius, float alpha) {
    m_manual = true;
    m_manualRadius = std::max(radius, 0.0f);
    m_manualAlpha = std::clamp(alpha, 0.0f, 1.0f);
}

float SomTrainer::radius() const {
    if (m_manual) return m_manualRadius;
    const double f = progress();
    return static_cast<float>(m_radiusStart - (m_radiusStart - m_params.radiusEnd) * f);
}

float SomTrainer::alpha() const {
    if (m_manual) return m_manualAlpha;
    const double f = progress();
    return static_cast<float>(m_params.alphaStart - (m_params.alphaStart - m_params.alphaEnd) * f);
}

bool SomTrainer::step(LandmarkModel& model, const TrainingData& data) {
    if (m_radiusStart < 0.0f) m_radiusStart = mapDistanceQuantile(model, m_params.topology, 0.67);
    m_total = static_cast<uint64_t>(m_params.epochs) * m_stream.epochSize(data);
    if (!m_manual && m_iter >= m_total) return false;
    const size_t g = model.count();
    m_lists.update(model, m_params.topology);
    const size_t batch = std::max<size_t>(m_params.searchBatch, 1);
    size_t done = 0;
    while (done < m_params.stepPoints && (m_manual || m_iter < m_total)) {
        size_t b = std::min(batch, m_params.stepPoints - done);
        if (!m_manual) b = static_cast<size_t>(std::min<uint64_t>(b, m_total - m_iter));
        m_stream.draw(model, data, m_search, b);
        for (size_t i = 0; i < b; ++i) {
            const float r = radius();
            const float a = alpha();
            const uint32_t c = m_stream.winner(i);
            const float* x = m_stream.point(i);
            if (m_lists.available()) {
                // Beyond this distance the weight is 0 (square) or below 1e-3 (Gaussian).
                const float reach = m_params.neighbourhood == Neighbourhood::Square ? r : 3.72f * r;
                const uint32_t* idx = m_lists.indices(c);
                const float* dist = m_lists.distances(c);
                for (size_t q = 0; q < g && dist[q] <= reach; ++q) {
                    const float w = neighbourhoodWeight(m_params.neighbourhood, dist[q], r);
                    if (w > 0.0f) pullLandmark(model, idx[q], x, a * w);
                }
                if (!m_manual) ++m_iter;
                continue;
            }
            for (size_t j = 0; j < g; ++j) {
                const float w = neighbourhoodWeight(m_params.neighbourhood,
                                                    mapDistance(model, c, j, m_params.topology), r);
                if (w > 0.0f) pullLandmark(model, j, x, a * w);
            }
            if (!m_manual) ++m_iter;
        }
        done += b;
    }
    ++model.highVersion;
    return m_manual || m_iter < m_total;
}

}  // namespace sepal
