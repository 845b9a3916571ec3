#include "core/train/kmeans_trainer.h"

#include <algorithm>
#include <vector>

#include "core/knn/lloyd_assigner.h"
#include "core/model/landmark_edit.h"
#include "core/train/som_trainer.h"

namespace sepal {

KmeansTrainer::KmeansTrainer(const KmeansParams& params, NearestSearch& search)
    : m_params(params), m_search(search), m_stream(params.seed, params.sampleSize) {}

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

double lloydStep(LandmarkModel& model, const TrainingData& data, NearestSearch& search,
                 LloydAssigner* assigner) {
    const size_t g = model.count(), d = data.d;
    std::vector<double> sums(g * d, 0.0);
    std::vector<size_t> counts(g, 0);
    double objective = 0.0;
    // Sequential sums: the same order whatever the thread count.
    const auto add = [&](size_t first, size_t b, const uint32_t* idx, const float* sq) {
        for (size_t i = 0; i < b; ++i) {
            const float* x = data.points + (first + i) * d;
            double* acc = sums.data() + static_cast<size_t>(idx[i]) * d;
            for (size_t t = 0; t < d; ++t) acc[t] += x[t];
            ++counts[idx[i]];
            objective += sq[i];
        }
    };
    if (assigner) {
        std::vector<uint32_t> idx(data.n);
        std::vector<float> sq(data.n);
        assigner->assign(model.high.data(), g, idx.data(), sq.data());
        add(0, data.n, idx.data(), sq.data());
    } else {
        constexpr size_t kBlock = 65536;
        std::vector<uint32_t> idx(kBlock);
        std::vector<float> sq(kBlock);
        for (size_t s = 0; s < data.n; s += kBlock) {
            const size_t b = std::min(kBlock, data.n - s);
            search.search(data.points + s * d, b, model.high.data(), g, d, 1, idx.data(),
                          sq.data());
            add(s, b, idx.data(), sq.data());
        }
    }
    for (size_t j = 0; j < g; ++j) {
        if (counts[j] == 0 || highLocked(model, j)) continue;
        float* h = model.highRow(j);
        for (size_t t = 0; t < d; ++t)
            h[t] = static_cast<float>(sums[j * d + t] / static_cast<double>(counts[j]));
    }
    ++model.highVersion;
    return objective;
}

}  // namespace sepal
