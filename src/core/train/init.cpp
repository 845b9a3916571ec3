#include "core/train/init.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/common/error.h"
#include "core/train/sampling.h"

namespace sepal {

namespace {

// The dominant eigenvector of a symmetric d x d matrix (row-major) by power iteration.
std::vector<double> powerIteration(const std::vector<double>& cov, size_t d, std::mt19937_64& rng) {
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<double> v(d), next(d);
    for (double& x : v) x = normal(rng);
    for (int it = 0; it < 300; ++it) {
        for (size_t i = 0; i < d; ++i) {
            double s = 0.0;
            for (size_t j = 0; j < d; ++j) s += cov[i * d + j] * v[j];
            next[i] = s;
        }
        const double norm =
            std::sqrt(std::inner_product(next.begin(), next.end(), next.begin(), 0.0));
        if (norm <= 0.0) break;
        double change = 0.0;
        for (size_t i = 0; i < d; ++i) {
            next[i] /= norm;
            change += std::abs(next[i] - v[i]);
        }
        v.swap(next);
        if (change < 1e-12) break;
    }
    const double norm = std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
    if (norm > 0.0)
        for (double& x : v) x /= norm;
    return v;
}

double rayleigh(const std::vector<double>& cov, const std::vector<double>& v, size_t d) {
    double s = 0.0;
    for (size_t i = 0; i < d; ++i)
        for (size_t j = 0; j < d; ++j) s += v[i] * cov[i * d + j] * v[j];
    return s;
}

std::string noFiniteRows(size_t n) {
    return "cannot initialise landmarks: none of the " + std::to_string(n) +
           " training events has a finite value in every column (each has NaN, NA or "
           "infinity); leave out the columns that are missing";
}

// Coordinates of point x on the plane.
void planeCoords(const PcaPlane& p, const float* x, float& a1, float& a2) {
    double s1 = 0.0, s2 = 0.0;
    for (size_t t = 0; t < p.mean.size(); ++t) {
        const double c = x[t] - p.mean[t];
        s1 += c * p.axis1[t];
        s2 += c * p.axis2[t];
    }
    a1 = static_cast<float>(s1);
    a2 = static_cast<float>(s2);
}

}  // namespace

PcaPlane computePcaPlane(const TrainingData& data, uint64_t seed, size_t maxPoints) {
    if (data.n == 0 || data.d == 0)
        throw InputError("cannot initialise landmarks: the training data is empty");
    const size_t d = data.d;
    // Rows with a missing value would make the mean and covariance NaN.
    const std::vector<size_t> finite = finiteRows(data.points, data.n, d);
    if (finite.empty()) throw InputError(noFiniteRows(data.n));
    std::vector<size_t> rows = samplePoints(finite.size(), maxPoints, seed);
    for (size_t& r : rows) r = finite[r];
    std::vector<double> mean(d, 0.0), cov(d * d, 0.0);
    for (size_t r : rows)
        for (size_t t = 0; t < d; ++t) mean[t] += data.points[r * d + t];
    for (double& m : mean) m /= static_cast<double>(rows.size());
    std::vector<double> c(d);
    for (size_t r : rows) {
        for (size_t t = 0; t < d; ++t) c[t] = data.points[r * d + t] - mean[t];
        for (size_t i = 0; i < d; ++i)
            for (size_t j = 0; j <= i; ++j) cov[i * d + j] += c[i] * c[j];
    }
    for (size_t i = 0; i < d; ++i)
        for (size_t j = 0; j <= i; ++j) {
            cov[i * d + j] /= static_cast<double>(rows.size());
            cov[j * d + i] = cov[i * d + j];
        }
    std::mt19937_64 rng(seed ^ 0x5eedULL);
    const std::vector<double> v1 = powerIteration(cov, d, rng);
    const double l1 = rayleigh(cov, v1, d);
    std::vector<double> deflated = cov;
    for (size_t i = 0; i < d; ++i)
        for (size_t j = 0; j < d; ++j) deflated[i * d + j] -= l1 * v1[i] * v1[j];
    std::vector<double> v2 = powerIteration(deflated, d, rng);
    // Keep axis2 exactly orthogonal to axis1 (deflation leaves rounding behind).
    const double proj = std::inner_product(v1.begin(), v1.end(), v2.begin(), 0.0);
    for (size_t t = 0; t < d; ++t) v2[t] -= proj * v1[t];
    const double n2 = std::sqrt(std::inner_product(v2.begin(), v2.end(), v2.begin(), 0.0));
    if (n2 > 0.0)
        for (double& x : v2) x /= n2;
    const double l2 = rayleigh(cov, v2, d);

    PcaPlane p;
    p.mean.assign(mean.begin(), mean.end());
    p.axis1.assign(v1.begin(), v1.end());
    p.axis2.assign(v2.begin(), v2.end());
    p.sd1 = static_cast<float>(std::sqrt(std::max(l1, 0.0)));
    p.sd2 = static_cast<float>(std::sqrt(std::max(l2, 0.0)));
    return p;
}

InitMethod parseInitMethod(const std::string& name) {
    if (name == "sample" || name == "random") return InitMethod::Sample;
    if (name == "pca") return InitMethod::Pca;
    if (name == "grid") return InitMethod::Grid;
    throw InputError("unknown initialisation \"" + name + "\": use sample, pca or grid");
}

void initModel(LandmarkModel& model, const TrainingData& data, const InitParams& params) {
    if (data.n == 0 || data.d == 0)
        throw InputError("cannot initialise landmarks: the training data is empty");
    const size_t d = data.d;
    const size_t g = params.method == InitMethod::Grid ? params.rows * params.cols : params.g;
    if (g == 0)
        throw InputError(params.method == InitMethod::Grid
                             ? "a landmark grid needs at least one row and one column"
                             : "the number of landmarks must be at least 1");
    const PcaPlane plane = computePcaPlane(data, params.seed);
    model.resize(g, d);
    // 2D units: +-2 standard deviations along the first axis span about sqrt(g) grid steps.
    const float sd1 = plane.sd1 > 0.0f ? plane.sd1 : 1.0f;
    const float lowScale = std::sqrt(static_cast<float>(g)) / (4.0f * sd1);

    if (params.method == InitMethod::Grid) {
        for (size_t r = 0; r < params.rows; ++r)
            for (size_t c = 0; c < params.cols; ++c) {
                const size_t i = r * params.cols + c;
                model.low[2 * i] = static_cast<float>(c);
                model.low[2 * i + 1] = static_cast<float>(r);
                const float u = params.cols > 1 ? 2.0f * c / (params.cols - 1) - 1.0f : 0.0f;
                const float v = params.rows > 1 ? 2.0f * r / (params.rows - 1) - 1.0f : 0.0f;
                float* h = model.highRow(i);
                for (size_t t = 0; t < d; ++t)
                    h[t] = plane.mean[t] + 2.0f * plane.sd1 * u * plane.axis1[t] +
                           2.0f * plane.sd2 * v * plane.axis2[t];
            }
        model.touch();
        return;
    }

    const std::vector<size_t> finite = finiteRows(data.points, data.n, d);
    std::vector<size_t> picked = samplePoints(finite.size(), g, params.seed, true);
    for (size_t& r : picked) r = finite[r];
    for (size_t i = 0; i < g; ++i) {
        const float* x = data.points + picked[i] * d;
        float a1, a2;
        planeCoords(plane, x, a1, a2);
        model.low[2 * i] = a1 * lowScale;
        model.low[2 * i + 1] = a2 * lowScale;
        float* h = model.highRow(i);
        if (params.method == InitMethod::Sample) {
            std::copy(x, x + d, h);
        } else {
            for (size_t t = 0; t < d; ++t)
                h[t] = plane.mean[t] + a1 * plane.axis1[t] + a2 * plane.axis2[t];
        }
    }
    model.touch();
}

}  // namespace sepal
