#include "app/synthetic.h"

#include <random>
#include <string>

namespace sepal::app {

io::Table makeSyntheticTable(size_t n, size_t d, size_t clusters, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> centre(0.0f, 6.0f);
    std::uniform_real_distribution<float> spread(0.2f, 0.6f);
    std::vector<float> centres(clusters * d), spreads(clusters * d);
    for (auto& c : centres) c = centre(rng);
    for (auto& s : spreads) s = spread(rng);

    io::Table t;
    t.source = "synthetic:" + std::to_string(n);
    for (size_t j = 0; j < d; ++j)
        t.channels.push_back(
            {"M" + std::to_string(j + 1), "Marker" + std::to_string(j + 1), 10, 32});
    t.values = Matrix(n, d);
    io::LabelColumn label{"cluster", {}, std::vector<int32_t>(n)};
    for (size_t c = 0; c < clusters; ++c) label.categories.push_back("C" + std::to_string(c + 1));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    // Cluster sizes fall off so that small populations exist next to large ones.
    std::vector<double> weights(clusters);
    for (size_t c = 0; c < clusters; ++c) weights[c] = 1.0 / (1.0 + double(c));
    std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
    for (size_t i = 0; i < n; ++i) {
        size_t c = pick(rng);
        label.codes[i] = int32_t(c);
        float* row = t.values.row(i);
        for (size_t j = 0; j < d; ++j)
            row[j] = centres[c * d + j] + spreads[c * d + j] * normal(rng);
    }
    t.labels.push_back(std::move(label));
    return t;
}

}  // namespace sepal::app
