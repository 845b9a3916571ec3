#include "core/train/sampling.h"

#include <cmath>
#include <numeric>
#include <utility>

namespace sepal {

std::vector<size_t> samplePoints(size_t n, size_t count, uint64_t seed, bool allowRepeats) {
    SplitMix rng(seed);
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), size_t{0});
    const size_t take = std::min(count, n);
    // Partial Fisher-Yates: the first `take` entries become a uniform random subset.
    for (size_t i = 0; i < take && n > 0; ++i) std::swap(idx[i], idx[i + rng.below(n - i)]);
    idx.resize(take);
    if (allowRepeats && n > 0)
        while (idx.size() < count) idx.push_back(rng.below(n));
    return idx;
}

std::vector<size_t> finiteRows(const float* points, size_t n, size_t d) {
    std::vector<size_t> rows;
    rows.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const float* x = points + i * d;
        bool finite = true;
        for (size_t t = 0; t < d && finite; ++t) finite = std::isfinite(x[t]);
        if (finite) rows.push_back(i);
    }
    return rows;
}

}  // namespace sepal
