#include "core/model/landmark_edit.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/common/error.h"

namespace sepal {

namespace {

void checkIndex(const LandmarkModel& m, size_t i, const char* what) {
    if (i >= m.count())
        throw InputError(std::string("cannot ") + what + " landmark " + std::to_string(i) +
                         ": the model has " + std::to_string(m.count()) + " landmarks");
}

// Distance from landmark i to its nearest other landmark, in data space or 2D; 1 when alone.
float nearestGap(const float* rows, size_t g, size_t dim, size_t i) {
    float best = std::numeric_limits<float>::infinity();
    for (size_t j = 0; j < g; ++j) {
        if (j == i) continue;
        float s = 0.0f;
        for (size_t t = 0; t < dim; ++t) {
            const float diff = rows[i * dim + t] - rows[j * dim + t];
            s += diff * diff;
        }
        if (s > 0.0f && s < best) best = s;
    }
    return std::isfinite(best) ? std::sqrt(best) : 1.0f;
}

}  // namespace

size_t duplicateLandmark(LandmarkModel& model, size_t i, float offset, uint64_t seed) {
    checkIndex(model, i, "duplicate");
    const size_t g = model.count();
    const float highGap = nearestGap(model.high.data(), g, model.dim, i) * offset;
    const float lowGap = nearestGap(model.low.data(), g, 2, i) * offset;
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> h(model.highRow(i), model.highRow(i) + model.dim);
    const float scale = highGap / std::sqrt(static_cast<float>(std::max<size_t>(model.dim, 1)));
    for (float& v : h) v += scale * normal(rng);
    const float angle = 6.2831853f * std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    return model.add(h.data(), model.low[2 * i] + lowGap * std::cos(angle),
                     model.low[2 * i + 1] + lowGap * std::sin(angle));
}

void setLocked(LandmarkModel& model, size_t i, uint8_t flags) {
    checkIndex(model, i, "lock");
    model.locked[i] = flags;
}

}  // namespace sepal
