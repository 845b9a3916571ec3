#include "core/train/batch_som_trainer.h"

#include <algorithm>

#include "core/model/landmark_edit.h"
#include "core/train/sampling.h"
#include "core/train/whole_data_model.h"

namespace sepal {

BatchSomTrainer::BatchSomTrainer(const SomParams& params, NearestSearch& search)
    : m_params(params), m_search(search), m_radiusStart(params.radiusStart) {}

double BatchSomTrainer::progress() const {
    if (m_params.epochs == 0) return 1.0;
    const double inEpoch =
        m_epochSize ? static_cast<double>(m_cursor) / static_cast<double>(m_epochSize) : 0.0;
    return std::min(
        1.0, (static_cast<double>(m_epoch) + inEpoch) / static_cast<double>(m_params.epochs));
}

float BatchSomTrainer::radius() const {
    const double f = m_params.epochs > 1
                         ? static_cast<double>(m_epoch) / static_cast<double>(m_params.epochs - 1)
                         : 1.0;
    return static_cast<float>(m_radiusStart -
                              (m_radiusStart - m_params.radiusEnd) * std::min(f, 1.0));
}

void BatchSomTrainer::finishEpoch(LandmarkModel& model) {
    const size_t g = model.count(), d = model.dim;
    const float r = radius();
    for (size_t j = 0; j < g; ++j) {
        if (highLocked(model, j)) continue;
        double den = 0.0;
        std::vector<double> num(d, 0.0);
        for (size_t c = 0; c < g; ++c) {
            if (m_counts[c] == 0.0) continue;
            const float h = neighbourhoodWeight(m_params.neighbourhood,
                                                mapDistance(model, j, c, m_params.topology), r);
            if (h <= 0.0f) continue;
            den += h * m_counts[c];
            for (size_t t = 0; t < d; ++t) num[t] += h * m_sums[c * d + t];
        }
        if (den <= 0.0) continue;
        for (size_t t = 0; t < d; ++t) model.highRow(j)[t] = static_cast<float>(num[t] / den);
    }
    ++model.highVersion;
}

std::vector<float> batchSomWeights(const LandmarkModel& model, const SomParams& params,
                                   float radius) {
    const size_t g = model.count();
    std::vector<float> w(g * g);
    // The same weight finishEpoch computes for each (landmark, winner) pair; each entry on its
    // own, so the threads change nothing (g = 1024: a million weights every epoch).
#pragma omp parallel for schedule(static) if (g >= 256)
    for (size_t j = 0; j < g; ++j)
        for (size_t c = 0; c < g; ++c)
            w[j * g + c] = neighbourhoodWeight(params.neighbourhood,
                                               mapDistance(model, j, c, params.topology), radius);
    return w;
}

bool BatchSomTrainer::useWholeData(WholeDataSteps* steps) {
    // The epoch in progress over the subsample is dropped when the cells change; asking again
    // with the same steps changes nothing.
    if (steps != m_whole) m_cursor = 0;
    m_whole = steps;
    return true;
}

void BatchSomTrainer::wholeDataEpoch(LandmarkModel& model) {
    requireWholeDataDims(model, *m_whole);
    const size_t g = model.count();
    if (g > 0) {
        const std::vector<float> w = batchSomWeights(model, m_params, radius());
        adoptWholeDataStep(model, m_whole->batchSom(model.high.data(), g, w.data()));
    }
    m_cursor = 0;
    ++m_epoch;
}

bool BatchSomTrainer::step(LandmarkModel& model, const TrainingData& data) {
    if (m_epoch >= m_params.epochs) return false;
    const size_t g = model.count(), d = data.d;
    if (m_radiusStart < 0.0f) m_radiusStart = mapDistanceQuantile(model, m_params.topology, 0.67);
    if (m_whole) {
        wholeDataEpoch(model);
        return m_epoch < m_params.epochs;
    }
    if (m_source != data.points) {
        m_source = data.points;
        m_sample.clear();
        if (m_params.sampleSize > 0 && m_params.sampleSize < data.n) {
            m_sample = samplePoints(data.n, m_params.sampleSize, m_params.seed);
            std::sort(m_sample.begin(), m_sample.end());
        }
        m_cursor = 0;
    }
    m_epochSize = m_sample.empty() ? data.n : m_sample.size();
    // Landmarks added or removed mid-epoch: the sums no longer fit, so the epoch starts over.
    if (m_cursor == 0 || m_counts.size() != g) {
        m_cursor = 0;
        m_sums.assign(g * d, 0.0);
        m_counts.assign(g, 0.0);
    }
    const size_t b = std::min(std::max<size_t>(m_params.stepPoints, 1), m_epochSize - m_cursor);
    const float* block = data.points + m_cursor * d;
    if (!m_sample.empty()) {
        m_buffer.resize(b * d);
        for (size_t i = 0; i < b; ++i)
            std::copy(data.points + m_sample[m_cursor + i] * d,
                      data.points + (m_sample[m_cursor + i] + 1) * d, m_buffer.data() + i * d);
        block = m_buffer.data();
    }
    m_idx.resize(b);
    m_sq.resize(b);
    m_search.search(block, b, model.high.data(), g, d, 1, m_idx.data(), m_sq.data());
    for (size_t i = 0; i < b; ++i) {
        double* s = m_sums.data() + static_cast<size_t>(m_idx[i]) * d;
        for (size_t t = 0; t < d; ++t) s[t] += block[i * d + t];
        m_counts[m_idx[i]] += 1.0;
    }
    m_cursor += b;
    if (m_cursor >= m_epochSize) {
        finishEpoch(model);
        m_cursor = 0;
        ++m_epoch;
    }
    return m_epoch < m_params.epochs;
}

}  // namespace sepal
