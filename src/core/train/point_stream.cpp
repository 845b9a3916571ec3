#include "core/train/point_stream.h"

#include <algorithm>
#include <string>

#include "core/common/error.h"

namespace sepal {

void PointStream::refreshSample(const TrainingData& data) {
    if (m_source == data.points && m_sourceN == data.n) return;
    m_source = data.points;
    m_sourceN = data.n;
    m_sample.clear();
    // Points with a missing value would drag their winners to NaN: draw from the others only.
    const std::vector<size_t> finite = finiteRows(data.points, data.n, data.d);
    if (finite.empty() && data.n > 0)
        throw InputError("cannot train landmarks: none of the " + std::to_string(data.n) +
                         " events has a finite value in every column (each has NaN, NA or "
                         "infinity); leave out the columns that are missing");
    if (m_sampleSize > 0 && m_sampleSize < finite.size()) {
        m_sample = samplePoints(finite.size(), m_sampleSize, m_seed ^ 0xa5a5a5a5ULL);
        for (size_t& r : m_sample) r = finite[r];
    } else if (finite.size() < data.n) {
        m_sample = finite;
    }
}

size_t PointStream::epochSize(const TrainingData& data) {
    refreshSample(data);
    return m_sample.empty() ? data.n : m_sample.size();
}

void PointStream::draw(const LandmarkModel& model, const TrainingData& data, NearestSearch& search,
                       size_t count) {
    if (data.n == 0) throw InputError("cannot train landmarks: the training data is empty");
    if (data.d != model.dim || model.count() == 0)
        throw InputError("cannot train landmarks: the model has " + std::to_string(model.dim) +
                         " dimensions and " + std::to_string(model.count()) +
                         " landmarks, the data " + std::to_string(data.d) +
                         " dimensions; initialise the landmarks first");
    refreshSample(data);
    m_d = data.d;
    m_points.resize(count * m_d);
    m_winner.resize(count);
    m_sqdist.resize(count);
    for (size_t i = 0; i < count; ++i) {
        const size_t r =
            m_sample.empty() ? m_rng.below(data.n) : m_sample[m_rng.below(m_sample.size())];
        std::copy(data.points + r * m_d, data.points + (r + 1) * m_d, m_points.data() + i * m_d);
    }
    search.search(m_points.data(), count, model.high.data(), model.count(), m_d, 1, m_winner.data(),
                  m_sqdist.data());
}

}  // namespace sepal
