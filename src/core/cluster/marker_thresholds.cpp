#include "core/cluster/marker_thresholds.h"

#include <algorithm>
#include <cmath>

namespace sepal {

namespace {

constexpr size_t kBins = 256;
constexpr double kSmoothingBins = 3.0;
constexpr double kSmallestMode = 0.001;   // of the highest mode's height
constexpr double kSmallestShare = 0.002;  // of the cells: a 0.2% population makes a mode
constexpr double kFewestCells = 25;
constexpr double kFloorShare = 0.01;  // of the values within the floor's width: a pile-up
constexpr float kFloorWidth = 0.01f;  // of the range above the smallest value
constexpr double kPileOverNext = 3;   // a smaller pile: times the values of the band above it
constexpr double kValleyDepth = 0.8;  // of the smaller of two modes

float quantile(const std::vector<float>& sorted, double q) {
    return sorted[static_cast<size_t>(q * static_cast<double>(sorted.size() - 1))];
}

}  // namespace

MarkerThreshold learnThreshold(std::vector<float> values) {
    std::erase_if(values, [](float v) { return !std::isfinite(v); });
    MarkerThreshold t;
    if (values.size() < 20) return t;
    std::sort(values.begin(), values.end());
    t.spread = 0.5f * (quantile(values, 0.84) - quantile(values, 0.16));
    // A pile-up at the floor (a mass cytometer's zero counts, a flow cytometer's clipped
    // values) is negative cells that measured nothing: left out of the histogram, it would make
    // a narrow mode of its own and cut the negative cells' noise from them.
    // A smaller pile counts too when it would make a mode (kFewestCells, kSmallestShare) and
    // stands out of the values just above it: 28 zeros of 3,482 gated cells (0.8 %) made the
    // lowest mode of a CytoNorm control's CD66, whose cut then called every other cell positive.
    const float floorWidth = kFloorWidth * (quantile(values, 0.995) - values.front());
    const auto floor = std::upper_bound(values.begin(), values.end(), values.front() + floorWidth);
    const auto above = std::upper_bound(floor, values.end(), values.front() + 2 * floorWidth);
    const double piled = double(floor - values.begin()), next = double(above - floor);
    const bool pile = piled >= kFloorShare * double(values.size()) ||
                      (piled >= std::max(kFewestCells, kSmallestShare * double(values.size())) &&
                       piled > kPileOverNext * next);
    if (pile && values.end() - floor >= 20) values.erase(values.begin(), floor);
    // The top reaches the 99.95th percentile: a rare bright population (plasmacytoid DCs, 0.4 %
    // of blood on CD123) lies wholly above the 99.5th and would make no mode.
    const double low = quantile(values, 0.005), high = quantile(values, 0.9995);
    if (!(high > low)) return t;
    const double width = (high - low) / kBins;
    std::vector<double> counts(kBins, 0.0);
    for (float v : values) {
        if (v < low || v > high) continue;
        counts[std::min(kBins - 1, static_cast<size_t>((v - low) / width))] += 1;
    }
    // Smoothed by a Gaussian kernel, so that sampling noise makes no modes.
    // (divided by the kernel's weight inside the range, so that the edges are not lowered).
    std::vector<double> density(kBins, 0.0);
    const int reach = static_cast<int>(3 * kSmoothingBins);
    for (int b = 0; b < int(kBins); ++b) {
        double weight = 0;
        for (int o = -reach; o <= reach; ++o) {
            const int s = b + o;
            if (s < 0 || s >= int(kBins)) continue;
            const double w = std::exp(-0.5 * (o * o) / (kSmoothingBins * kSmoothingBins));
            density[size_t(b)] += counts[size_t(s)] * w;
            weight += w;
        }
        density[size_t(b)] /= weight;
    }
    const double top = *std::max_element(density.begin(), density.end());
    std::vector<size_t> modes;
    for (size_t b = 0; b < kBins; ++b) {
        const double left = b > 0 ? density[b - 1] : -1,
                     right = b + 1 < kBins ? density[b + 1] : -1;
        if (density[b] >= kSmallestMode * top && density[b] > left && density[b] >= right)
            modes.push_back(b);
    }
    // Neighbouring modes without a real valley between them are one mode (the higher).
    const auto valleyBetween = [&](size_t a, size_t b) {
        return size_t(std::min_element(density.begin() + long(a), density.begin() + long(b) + 1) -
                      density.begin());
    };
    for (size_t i = 1; i < modes.size();) {
        const size_t v = valleyBetween(modes[i - 1], modes[i]);
        if (density[v] > kValleyDepth * std::min(density[modes[i - 1]], density[modes[i]])) {
            if (density[modes[i]] > density[modes[i - 1]]) modes[i - 1] = modes[i];
            modes.erase(modes.begin() + long(i));
            i = 1;  // merged: look again from the start
        } else {
            ++i;
        }
    }
    // A mode must hold enough cells (between the valleys on either side) to be a population
    // rather than a few outliers; a small one joins its neighbour.
    const double fewest = std::max(kFewestCells, kSmallestShare * double(values.size()));
    for (bool dropped = true; dropped && modes.size() > 1;) {
        dropped = false;
        for (size_t i = 0; i < modes.size(); ++i) {
            const size_t from = i == 0 ? 0 : valleyBetween(modes[i - 1], modes[i]);
            const size_t to =
                i + 1 == modes.size() ? kBins - 1 : valleyBetween(modes[i], modes[i + 1]);
            double mass = 0;
            for (size_t b = from; b <= to; ++b) mass += counts[b];
            if (mass < fewest) {
                modes.erase(modes.begin() + long(i));
                dropped = true;
                break;
            }
        }
    }
    const auto centre = [&](size_t bin) { return float(low + (double(bin) + 0.5) * width); };
    t.lowMode = centre(modes.empty() ? 0 : modes.front());
    if (modes.size() < 2) return t;
    t.resolved = true;
    const size_t valley = valleyBetween(modes[0], modes[1]);
    t.positive = centre(valley);
    t.depth = float(density[valley] / std::min(density[modes[0]], density[modes[1]]));
    if (modes.size() >= 3) {
        t.hasBright = true;
        t.bright = centre(valleyBetween(modes[1], modes[2]));
    }
    return t;
}

}  // namespace sepal
