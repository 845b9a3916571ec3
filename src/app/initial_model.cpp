#include "app/initial_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/train/init.h"
#include "core/train/landmark_graph.h"
#include "core/train/trainer_registry.h"

namespace sepal::app {

LandmarkModel makeInitialModel(const Matrix& points, size_t g, size_t graphK, uint64_t seed,
                               TrainerInit start) {
    LandmarkModel model;
    if (points.rows == 0 || points.cols == 0) return model;
    TrainingData data{points.data(), points.rows, points.cols};
    InitParams p;
    p.seed = seed;
    if (start == TrainerInit::Grid) {
        size_t side = std::max<size_t>(2, size_t(std::lround(std::sqrt(double(g)))));
        p.method = InitMethod::Grid;
        p.rows = p.cols = side;
    } else {
        p.method = InitMethod::Sample;
        p.g = std::clamp<size_t>(g, 4, points.rows);
    }
    initModel(model, data, p);
    if (graphK > 0 && model.count() > 1) buildLandmarkGraph(model, graphK);
    model.touch();
    return model;
}

void fitHighFromLow(const LandmarkModel& model, float x, float y, size_t neighbours, float* out) {
    size_t g = model.count(), d = model.dim;
    std::fill(out, out + d, 0.0f);
    if (g == 0) return;
    std::vector<std::pair<float, size_t>> order;
    for (size_t l = 0; l < g; ++l) {
        float dx = model.low[2 * l] - x, dy = model.low[2 * l + 1] - y;
        order.push_back({dx * dx + dy * dy, l});
    }
    size_t k = std::min(neighbours, g);
    std::partial_sort(order.begin(), order.begin() + long(k), order.end());
    double total = 0;
    std::vector<double> acc(d, 0.0);
    for (size_t i = 0; i < k; ++i) {
        double w = 1.0 / (std::sqrt(double(order[i].first)) + 1e-6);
        total += w;
        for (size_t j = 0; j < d; ++j) acc[j] += w * model.highRow(order[i].second)[j];
    }
    for (size_t j = 0; j < d; ++j) out[j] = float(acc[j] / total);
}

}  // namespace sepal::app
