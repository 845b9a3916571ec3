#include "core/train/plsom_trainer.h"

#include <algorithm>
#include <cmath>

#include "core/train/som_trainer.h"
#include "core/train/topology.h"

namespace sepal {

PlsomTrainer::PlsomTrainer(const PlsomParams& params, NearestSearch& search)
    : m_params(params), m_search(search), m_stream(params.seed, params.sampleSize) {}

double PlsomTrainer::progress() const {
    if (m_params.epochs == 0) return -1.0;
    if (m_total == 0) return 0.0;
    return std::min(1.0, static_cast<double>(m_iter) / static_cast<double>(m_total));
}

bool PlsomTrainer::step(LandmarkModel& model, const TrainingData& data) {
    const size_t g = model.count();
    const bool endless = m_params.epochs == 0;
    m_total = static_cast<uint64_t>(m_params.epochs) * m_stream.epochSize(data);
    if (!endless && m_iter >= m_total) return false;
    if (m_mapVersion != model.lowVersion) {
        // The map's scale: its spacing, and beta from its extent in spacing units.
        m_spacing = medianMapSpacing(model);
        float minX = model.low[0], maxX = model.low[0], minY = model.low[1], maxY = model.low[1];
        for (size_t i = 0; i < g; ++i) {
            minX = std::min(minX, model.low[2 * i]), maxX = std::max(maxX, model.low[2 * i]);
            minY = std::min(minY, model.low[2 * i + 1]);
            maxY = std::max(maxY, model.low[2 * i + 1]);
        }
        m_beta = m_params.beta > 0.0f ? m_params.beta
                                      : ((maxX - minX) + (maxY - minY)) / m_spacing / 2.0f + 1.0f;
        m_mapVersion = model.lowVersion;
    }
    m_lists.update(model, TopologyMetric::Euclidean);
    const size_t batch = std::max<size_t>(m_params.searchBatch, 1);
    const float e1 = static_cast<float>(M_E - 1.0);
    const float invSpacing2 = 1.0f / (m_spacing * m_spacing);
    for (size_t done = 0; done < m_params.stepPoints && (endless || m_iter < m_total);) {
        size_t b = std::min(batch, m_params.stepPoints - done);
        if (!endless) b = static_cast<size_t>(std::min<uint64_t>(b, m_total - m_iter));
        m_stream.draw(model, data, m_search, b);
        for (size_t i = 0; i < b; ++i) {
            const uint32_t c = m_stream.winner(i);
            const float* x = m_stream.point(i);
            // The winner may have moved since the batch search: measure its distance now.
            float dist2 = 0.0f;
            for (size_t t = 0; t < model.dim; ++t) {
                const float diff = x[t] - model.highRow(c)[t];
                dist2 += diff * diff;
            }
            const float dist = std::sqrt(dist2);
            m_rho = std::max(m_rho, dist);
            if (m_rho <= 0.0f) continue;
            const float eps = dist / m_rho;
            const float theta = m_beta * std::log1p(eps * e1);
            if (theta <= 1e-6f) {
                pullLandmark(model, c, x, eps);
                continue;
            }
            const float invTheta2 = 1.0f / (theta * theta);
            if (m_lists.available()) {
                // exp(-u^2) <= 1e-4 beyond u = 3.04: landmarks farther out are not moved.
                const float reach = 3.04f * theta * m_spacing;
                const uint32_t* idx = m_lists.indices(c);
                const float* dist = m_lists.distances(c);
                for (size_t q = 0; q < g && dist[q] <= reach; ++q) {
                    const float h = std::exp(-dist[q] * dist[q] * invSpacing2 * invTheta2);
                    if (h > 1e-4f) pullLandmark(model, idx[q], x, eps * h);
                }
                continue;
            }
            for (size_t j = 0; j < g; ++j) {
                const float dx = model.low[2 * j] - model.low[2 * c];
                const float dy = model.low[2 * j + 1] - model.low[2 * c + 1];
                const float h = std::exp(-(dx * dx + dy * dy) * invSpacing2 * invTheta2);
                if (h > 1e-4f) pullLandmark(model, j, x, eps * h);
            }
        }
        done += b;
        m_iter += b;
    }
    ++model.highVersion;
    return endless || m_iter < m_total;
}

}  // namespace sepal
