#include "core/train/objective.h"

#include <cmath>
#include <vector>

namespace sepal {

namespace {

// Nearest-landmark squared distances in blocks, so memory stays small for millions of points.
template <typename F>
void forEachSqdist(const LandmarkModel& model, const TrainingData& data, NearestSearch& search,
                   F&& f) {
    constexpr size_t kBlock = 65536;
    std::vector<uint32_t> idx(kBlock);
    std::vector<float> sq(kBlock);
    for (size_t s = 0; s < data.n; s += kBlock) {
        const size_t b = std::min(kBlock, data.n - s);
        search.search(data.points + s * data.d, b, model.high.data(), model.count(), data.d, 1,
                      idx.data(), sq.data());
        for (size_t i = 0; i < b; ++i) f(sq[i]);
    }
}

}  // namespace

double quantisationError(const LandmarkModel& model, const TrainingData& data,
                         NearestSearch& search) {
    double sum = 0.0;
    forEachSqdist(model, data, search, [&](float s) { sum += std::sqrt(static_cast<double>(s)); });
    return data.n ? sum / static_cast<double>(data.n) : 0.0;
}

double kmeansObjective(const LandmarkModel& model, const TrainingData& data,
                       NearestSearch& search) {
    double sum = 0.0;
    forEachSqdist(model, data, search, [&](float s) { sum += s; });
    return sum;
}

}  // namespace sepal
