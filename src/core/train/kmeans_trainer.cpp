#include "core/train/kmeans_trainer.h"

#include <algorithm>

#include "core/train/som_trainer.h"
#include "core/train/trainer_names.h"

namespace sepal {

KmeansTrainer::KmeansTrainer(const KmeansParams& params, NearestSearch& search)
    : m_params(params), m_search(search), m_stream(params.seed, params.sampleSize) {}

std::string KmeansTrainer::name() const {
    return trainer_name::kOnlineKmeans;
}

double KmeansTrainer::progress() const {
    if (m_params.epochs == 0) return -1.0;
    if (m_total == 0) return 0.0;
    return std::min(1.0, static_cast<double>(m_iter) / static_cast<double>(m_total));
}

bool KmeansTrainer::step(LandmarkModel& model, const TrainingData& data) {
    const bool endless = m_params.epochs == 0;
    m_total = static_cast<uint64_t>(m_params.epochs) * m_stream.epochSize(data);
    if (!endless && m_iter >= m_total) return false;
    const size_t batch = std::max<size_t>(m_params.searchBatch, 1);
    size_t done = 0;
    while (done < m_params.stepPoints && (endless || m_iter < m_total)) {
        size_t b = std::min(batch, m_params.stepPoints - done);
        if (!endless) b = static_cast<size_t>(std::min<uint64_t>(b, m_total - m_iter));
        m_stream.draw(model, data, m_search, b);
        for (size_t i = 0; i < b; ++i)
            pullLandmark(model, m_stream.winner(i), m_stream.point(i), m_params.rate);
        m_iter += b;
        done += b;
    }
    ++model.highVersion;
    return endless || m_iter < m_total;
}

}  // namespace sepal
