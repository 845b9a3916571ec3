#include "app/synthetic.h"

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace sepal::app {

namespace {
/// Rows drawn from one generator (the first block: the same rows as before blocks existed).
constexpr size_t kSyntheticBlock = size_t(1) << 20;
}  // namespace

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
    // Cluster sizes fall off so that small populations exist next to large ones.
    std::vector<double> weights(clusters);
    for (size_t c = 0; c < clusters; ++c) weights[c] = 1.0 / (1.0 + double(c));
    // Blocks of rows drawn on every core (10^8 cells of 32 channels take minutes on one): the
    // first block continues the centres' generator, each later one has its own seed, so the
    // values do not depend on the number of threads.
    const size_t blocks = (n + kSyntheticBlock - 1) / kSyntheticBlock;
    auto fill = [&](size_t b, std::mt19937_64& gen) {
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
        for (size_t i = b * kSyntheticBlock; i < std::min(n, (b + 1) * kSyntheticBlock); ++i) {
            size_t c = pick(gen);
            label.codes[i] = int32_t(c);
            float* row = t.values.row(i);
            for (size_t j = 0; j < d; ++j)
                row[j] = centres[c * d + j] + spreads[c * d + j] * normal(gen);
        }
    };
    if (blocks > 0) fill(0, rng);
    std::atomic<size_t> next{1};
    std::vector<std::thread> workers;
    const size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()),
                                            blocks > 1 ? blocks - 1 : 0);
    for (size_t w = 0; w < threads; ++w)
        workers.emplace_back([&] {
            for (size_t b = next++; b < blocks; b = next++) {
                std::mt19937_64 gen(seed * 0x9e3779b97f4a7c15ull + b);
                fill(b, gen);
            }
        });
    for (auto& w : workers) w.join();
    t.labels.push_back(std::move(label));
    return t;
}

}  // namespace sepal::app
