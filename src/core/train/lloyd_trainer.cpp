#include "core/train/lloyd_trainer.h"

#include <algorithm>

#include "core/knn/lloyd_assigner.h"
#include "core/model/landmark_edit.h"
#include "core/train/trainer_names.h"
#include "core/train/whole_data_model.h"

namespace sepal {

void LloydSums::reset(size_t g, size_t d) {
    m_d = d;
    m_sums.assign(g * d, 0.0);
    m_counts.assign(g, 0);
    m_objective = 0.0;
}

void LloydSums::add(const float* points, size_t first, size_t count, const uint32_t* idx,
                    const float* sq) {
    // Sequential sums: the same order whatever the thread count or the size of the parts.
    for (size_t i = 0; i < count; ++i) {
        const float* x = points + (first + i) * m_d;
        double* acc = m_sums.data() + static_cast<size_t>(idx[i]) * m_d;
        for (size_t t = 0; t < m_d; ++t) acc[t] += x[t];
        ++m_counts[idx[i]];
        m_objective += sq[i];
    }
}

double LloydSums::moveLandmarks(LandmarkModel& model) const {
    for (size_t j = 0; j < m_counts.size(); ++j) {
        if (m_counts[j] == 0 || highLocked(model, j)) continue;
        float* h = model.highRow(j);
        for (size_t t = 0; t < m_d; ++t)
            h[t] = static_cast<float>(m_sums[j * m_d + t] / static_cast<double>(m_counts[j]));
    }
    ++model.highVersion;
    return m_objective;
}

double lloydStep(LandmarkModel& model, const TrainingData& data, NearestSearch& search,
                 LloydAssigner* assigner) {
    const size_t g = model.count(), d = data.d;
    LloydSums sums;
    sums.reset(g, d);
    if (assigner) {
        std::vector<uint32_t> idx(data.n);
        std::vector<float> sq(data.n);
        assigner->assign(model.high.data(), g, idx.data(), sq.data());
        sums.add(data.points, 0, data.n, idx.data(), sq.data());
    } else {
        constexpr size_t kBlock = 65536;
        std::vector<uint32_t> idx(kBlock);
        std::vector<float> sq(kBlock);
        for (size_t s = 0; s < data.n; s += kBlock) {
            const size_t b = std::min(kBlock, data.n - s);
            search.search(data.points + s * d, b, model.high.data(), g, d, 1, idx.data(),
                          sq.data());
            sums.add(data.points, s, b, idx.data(), sq.data());
        }
    }
    return sums.moveLandmarks(model);
}

LloydTrainer::LloydTrainer(const LloydParams& params, NearestSearch& search)
    : m_params(params), m_search(search) {}

LloydTrainer::~LloydTrainer() = default;

std::string LloydTrainer::name() const {
    return trainer_name::kKmeans;
}

double LloydTrainer::progress() const {
    if (m_params.epochs == 0) return 1.0;
    const double part = m_passRows == 0 ? 0.0 : double(m_next) / double(m_passRows);
    return std::min(1.0, (double(m_done) + part) / double(m_params.epochs));
}

bool LloydTrainer::useWholeData(WholeDataSteps* steps) {
    // A part of a pass over the subsample is dropped when the cells change: the next pass starts
    // afresh. Asking again with the same steps changes nothing.
    if (steps != m_whole) {
        m_next = 0;
        m_passRows = 0;
    }
    m_whole = steps;
    return true;
}

bool LloydTrainer::step(LandmarkModel& model, const TrainingData& data) {
    if (m_done >= m_params.epochs) return false;
    if (m_whole) {
        requireWholeDataDims(model, *m_whole);
        if (model.count() > 0)
            adoptWholeDataStep(model, m_whole->lloyd(model.high.data(), model.count()));
    } else if (m_params.stepPoints == 0)
        wholeIteration(model, data);
    else if (!partOfIteration(model, data))
        return true;
    ++m_done;
    return m_done < m_params.epochs;
}

void LloydTrainer::wholeIteration(LandmarkModel& model, const TrainingData& data) {
    if (!m_assigner || m_assignerPoints != data.points || m_assignerRows != data.n) {
        m_assigner = m_search.lloydAssigner(data.points, data.n, data.d);
        m_assignerPoints = data.points;
        m_assignerRows = data.n;
    }
    lloydStep(model, data, m_search, m_assigner.get());
}

bool LloydTrainer::partOfIteration(LandmarkModel& model, const TrainingData& data) {
    const size_t g = model.count(), d = data.d;
    if (m_next == 0 || m_pass.landmarks() != g || m_passRows != data.n) {
        m_pass.reset(g, d);
        m_passRows = data.n;
        m_next = 0;
    }
    const size_t b = std::min(m_params.stepPoints, data.n - m_next);
    std::vector<uint32_t> idx(b);
    std::vector<float> sq(b);
    if (b > 0 && g > 0) {
        m_search.search(data.points + m_next * d, b, model.high.data(), g, d, 1, idx.data(),
                        sq.data());
        m_pass.add(data.points, m_next, b, idx.data(), sq.data());
    }
    m_next += b;
    if (m_next < data.n) return false;
    m_pass.moveLandmarks(model);
    m_next = 0;
    return true;
}

}  // namespace sepal
