#include "core/train/supervision.h"

#include <cmath>
#include <map>

#include "core/common/error.h"

namespace sepal {

std::vector<int32_t> landmarkLabels(const float* points, size_t n, size_t d,
                                    const std::vector<int32_t>& labels, const LandmarkModel& model,
                                    NearestSearch& search) {
    const size_t g = model.count();
    if (labels.size() != n)
        throw InputError("supervision: " + std::to_string(labels.size()) + " labels for " +
                         std::to_string(n) + " events");
    if (d != model.dim)
        throw InputError("supervision: the events have " + std::to_string(d) +
                         " columns, the landmarks " + std::to_string(model.dim));
    std::vector<uint32_t> nearest(n);
    std::vector<float> dist(n);
    if (n > 0 && g > 0)
        search.search(points, n, model.high.data(), g, d, 1, nearest.data(), dist.data());
    std::vector<std::map<int32_t, size_t>> votes(g);
    for (size_t i = 0; i < n; ++i) {
        if (labels[i] < 0 || !std::isfinite(dist[i])) continue;
        bool finite = true;
        for (size_t t = 0; t < d && finite; ++t) finite = std::isfinite(points[i * d + t]);
        if (finite) ++votes[nearest[i]][labels[i]];
    }
    std::vector<int32_t> out(g, -1);
    for (size_t u = 0; u < g; ++u) {
        size_t best = 0;
        for (const auto& [label, count] : votes[u])  // ascending labels: ties go to the lower
            if (count > best) best = count, out[u] = label;
    }
    return out;
}

std::vector<float> supervisionFactors(const std::vector<int32_t>& labels, float strength) {
    const size_t g = labels.size();
    const float apart = std::exp(-strength);
    std::vector<float> f(g * g, 1.0f);
    for (size_t i = 0; i < g; ++i)
        for (size_t j = 0; j < g; ++j)
            if (labels[i] >= 0 && labels[j] >= 0 && labels[i] != labels[j]) f[i * g + j] = apart;
    return f;
}

}  // namespace sepal
