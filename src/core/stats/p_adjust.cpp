#include "core/stats/p_adjust.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sepal::stats {

std::vector<double> adjustBenjaminiHochberg(const std::vector<double>& p) {
    std::vector<size_t> order;
    for (size_t i = 0; i < p.size(); ++i)
        if (!std::isnan(p[i])) order.push_back(i);
    // Largest first: the running minimum makes the adjusted values monotone in p.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] > p[b]; });
    std::vector<double> out(p.size(), std::nan(""));
    const double n = double(order.size());
    double running = 1.0;
    for (size_t r = 0; r < order.size(); ++r) {
        const double rank = n - double(r);
        running = std::min(running, p[order[r]] * n / rank);
        out[order[r]] = std::min(1.0, running);
    }
    return out;
}

}  // namespace sepal::stats
