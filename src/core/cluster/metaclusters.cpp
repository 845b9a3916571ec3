#include "core/cluster/metaclusters.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "core/cluster/agglomerate.h"
#include "core/common/error.h"

namespace sepal {

namespace {

/// Whether row i of points has every value finite (a cell with a missing value has no nearest
/// landmark, so no population and no weight).
bool complete(const Matrix& points, size_t i) {
    const float* r = points.row(i);
    return std::all_of(r, r + points.cols, [](float v) { return std::isfinite(v); });
}

/// FlowSOM's consensus: groups from average linkage on resampled landmarks, counted pair by
/// pair, then average linkage on 1 - (times grouped together / times resampled together).
std::vector<int32_t> consensusGroups(const LandmarkModel& model, const MetaclusterSettings& s) {
    const size_t g = model.count(), d = model.dim;
    const size_t take = std::max<size_t>(s.k, size_t(std::lround(s.fraction * double(g))));
    std::vector<double> together(g * g, 0.0), sampled(g * g, 0.0);
    const std::vector<double> all = squaredDistances(model.high.data(), g, d);
    std::mt19937_64 rng(s.seed);
    std::vector<size_t> order(g);
    for (int r = 0; r < s.resamplings; ++r) {
        for (size_t i = 0; i < g; ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<size_t> pick(order.begin(), order.begin() + long(std::min(take, g)));
        std::sort(pick.begin(), pick.end());
        const size_t m = pick.size();
        std::vector<double> sub(m * m);
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < m; ++j) sub[i * m + j] = std::sqrt(all[pick[i] * g + pick[j]]);
        std::vector<double> weights;
        if (!s.weights.empty())
            for (size_t i : pick) weights.push_back(s.weights[i]);
        const auto groups =
            agglomerate(std::move(sub), m, Linkage::Average, std::min(s.k, m), weights);
        for (size_t i = 0; i < m; ++i)
            for (size_t j = i + 1; j < m; ++j) {
                const size_t a = pick[i], b = pick[j];
                sampled[a * g + b] += 1;
                together[a * g + b] += groups[i] == groups[j];
            }
    }
    std::vector<double> dis(g * g, 0.0);
    for (size_t a = 0; a < g; ++a)
        for (size_t b = a + 1; b < g; ++b) {
            const double n = sampled[a * g + b];
            dis[a * g + b] = dis[b * g + a] = n > 0 ? 1.0 - together[a * g + b] / n : 1.0;
        }
    return agglomerate(std::move(dis), g, Linkage::Average, s.k, s.weights);
}

}  // namespace

MetaclusterMethod metaclusterMethod(const std::string& name) {
    if (name == "ward") return MetaclusterMethod::Ward;
    if (name == "consensus") return MetaclusterMethod::Consensus;
    throw InputError("metacluster method '" + name + "': use ward or consensus");
}

std::vector<int32_t> metaclusterLandmarks(const LandmarkModel& model,
                                          const MetaclusterSettings& settings) {
    const size_t g = model.count();
    if (settings.k < 1 || settings.k > g)
        throw InputError("--metaclusters " + std::to_string(settings.k) + ": the model has " +
                         std::to_string(g) + " landmarks; make 1 to " + std::to_string(g) +
                         " populations");
    // Checked before the g x g matrices are made (4096 landmarks: 128 MiB each).
    if (g > kMostAgglomerated)
        throw InputError("populations from " + std::to_string(g) + " landmarks: at most " +
                         std::to_string(kMostAgglomerated) + " can be grouped; train fewer");
    for (float v : model.high)
        if (!std::isfinite(v)) throw InputError("a landmark has a missing value: retrain it");
    if (!settings.weights.empty() && settings.weights.size() != g)
        throw InputError("populations from " + std::to_string(g) + " landmarks with " +
                         std::to_string(settings.weights.size()) + " weights");
    if (!settings.columns.empty() && settings.columns.size() != model.dim)
        throw InputError("populations from landmarks of " + std::to_string(model.dim) +
                         " columns with flags for " + std::to_string(settings.columns.size()));
    // The landmarks in the compared dimensions only (the type markers: a cytokine does not
    // decide what a cell is).
    LandmarkModel compared;
    const LandmarkModel* view = &model;
    if (!settings.columns.empty() &&
        std::count(settings.columns.begin(), settings.columns.end(), 0) > 0) {
        size_t dims = 0;
        for (uint8_t f : settings.columns) dims += f != 0;
        if (dims == 0) throw InputError("populations from landmarks: no column to compare");
        compared.resize(g, dims);
        for (size_t j = 0; j < g; ++j) {
            size_t t = 0;
            for (size_t c = 0; c < model.dim; ++c)
                if (settings.columns[c]) compared.highRow(j)[t++] = model.highRow(j)[c];
        }
        view = &compared;
    }
    if (settings.method == MetaclusterMethod::Consensus) {
        if (settings.resamplings < 1 || !(settings.fraction > 0 && settings.fraction <= 1))
            throw InputError("consensus clustering needs resamplings >= 1 and 0 < fraction <= 1");
        return consensusGroups(*view, settings);
    }
    return agglomerate(squaredDistances(view->high.data(), g, view->dim), g, Linkage::Ward,
                       settings.k, settings.weights);
}

std::vector<uint8_t> groupingColumns(const std::vector<MarkerClass>& classes) {
    std::vector<uint8_t> flags(classes.size(), 0);
    size_t type = 0;
    for (size_t c = 0; c < classes.size(); ++c) type += flags[c] = classes[c] == MarkerClass::Type;
    return type >= 2 ? flags : std::vector<uint8_t>();
}

std::vector<uint32_t> nearestLandmarks(const Matrix& points, const LandmarkModel& model,
                                       NearestSearch& search) {
    if (points.cols != model.dim)
        throw InputError("the points have " + std::to_string(points.cols) + " columns; the model " +
                         std::to_string(model.dim));
    std::vector<uint32_t> idx(points.rows, 0);
    if (points.rows == 0 || model.count() == 0) return idx;
    std::vector<float> dist(points.rows);
    search.search(points.data(), points.rows, model.high.data(), model.count(), model.dim, 1,
                  idx.data(), dist.data());
    return idx;
}

std::vector<double> landmarkWeights(const Matrix& points, const std::vector<uint32_t>& nearest,
                                    size_t landmarks) {
    if (nearest.size() != points.rows)
        throw InputError("nearest landmarks for " + std::to_string(nearest.size()) +
                         " points; there are " + std::to_string(points.rows));
    std::vector<double> cells(landmarks, 0.0);
    for (size_t i = 0; i < points.rows; ++i) {
        if (nearest[i] < landmarks && complete(points, i)) cells[nearest[i]] += 1;
    }
    for (double& c : cells) c = std::max(c, 1.0);
    return cells;
}

std::vector<int32_t> groupsOfPoints(const Matrix& points, const LandmarkModel& model,
                                    const std::vector<int32_t>& groupOfLandmark,
                                    NearestSearch& search) {
    if (groupOfLandmark.size() != model.count())
        throw InputError("the populations name " + std::to_string(groupOfLandmark.size()) +
                         " landmarks; the model has " + std::to_string(model.count()));
    const std::vector<uint32_t> nearest = nearestLandmarks(points, model, search);
    if (model.count() == 0) return std::vector<int32_t>(points.rows, -1);
    return groupsOfNearest(points, nearest, groupOfLandmark);
}

std::vector<int32_t> groupsOfNearest(const Matrix& points, const std::vector<uint32_t>& nearest,
                                     const std::vector<int32_t>& groupOfLandmark) {
    if (nearest.size() != points.rows)
        throw InputError("nearest landmarks for " + std::to_string(nearest.size()) +
                         " points; there are " + std::to_string(points.rows));
    std::vector<int32_t> codes(points.rows, -1);
    for (size_t i = 0; i < points.rows; ++i) {
        const bool full = complete(points, i);
        if (full && nearest[i] >= groupOfLandmark.size())
            throw InputError("nearest landmark " + std::to_string(nearest[i]) + " of point " +
                             std::to_string(i) + " is not one of the " +
                             std::to_string(groupOfLandmark.size()) + " landmarks");
        codes[i] = full ? groupOfLandmark[nearest[i]] : -1;
    }
    return codes;
}

double adjustedRandIndex(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    if (a.size() != b.size()) throw InputError("the two labellings differ in length");
    std::map<std::pair<int32_t, int32_t>, double> cells;
    std::map<int32_t, double> rows, cols;
    double n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] < 0 || b[i] < 0) continue;
        cells[{a[i], b[i]}] += 1;
        rows[a[i]] += 1;
        cols[b[i]] += 1;
        n += 1;
    }
    auto pairs = [](double x) { return x * (x - 1) / 2; };
    double index = 0, sumRows = 0, sumCols = 0;
    for (const auto& [key, v] : cells) index += pairs(v);
    for (const auto& [key, v] : rows) sumRows += pairs(v);
    for (const auto& [key, v] : cols) sumCols += pairs(v);
    const double expected = n > 1 ? sumRows * sumCols / pairs(n) : 0;
    const double best = 0.5 * (sumRows + sumCols);
    return best == expected ? 1.0 : (index - expected) / (best - expected);
}

}  // namespace sepal
