#include "core/cluster/agglomerate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/common/error.h"

namespace sepal {

namespace {

struct Merge {
    double height;
    size_t a, b;  // the surviving slot and the absorbed one
};

/// Union-find over items, with path halving.
size_t findRoot(std::vector<size_t>& parent, size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

}  // namespace

std::vector<double> squaredDistances(const float* x, size_t g, size_t d) {
    std::vector<double> out(g * g, 0.0);
    for (size_t i = 0; i < g; ++i)
        for (size_t j = i + 1; j < g; ++j) {
            double s = 0;
            for (size_t t = 0; t < d; ++t) {
                const double e = double(x[i * d + t]) - double(x[j * d + t]);
                s += e * e;
            }
            out[i * g + j] = out[j * g + i] = s;
        }
    return out;
}

std::vector<int32_t> agglomerate(std::vector<double> dis, size_t g, Linkage linkage, size_t k,
                                 const std::vector<double>& weights) {
    if (g == 0) throw InputError("clustering needs at least one item");
    if (g > kMostAgglomerated)
        throw InputError("clustering " + std::to_string(g) + " landmarks: at most " +
                         std::to_string(kMostAgglomerated) + " can be grouped");
    if (k < 1 || k > g)
        throw InputError("cannot make " + std::to_string(k) + " groups of " + std::to_string(g) +
                         " landmarks: use 1 to " + std::to_string(g));
    if (dis.size() != g * g) throw InputError("the dissimilarity matrix is not g x g");
    if (!weights.empty() && weights.size() != g)
        throw InputError("clustering " + std::to_string(g) + " items with " +
                         std::to_string(weights.size()) + " weights");
    for (double w : weights)
        if (!(w > 0) || !std::isfinite(w)) throw InputError("clustering weights must be positive");
    std::vector<double> size = weights.empty() ? std::vector<double>(g, 1.0) : weights;
    // Ward's dissimilarity of two groups is 2 n_a n_b / (n_a + n_b) times their centres' squared
    // distance (the Lance-Williams update keeps it so); for items of weight 1 that is the squared
    // distance itself.
    if (linkage == Linkage::Ward && !weights.empty())
        for (size_t i = 0; i < g; ++i)
            for (size_t j = 0; j < g; ++j)
                if (i != j) dis[i * g + j] *= 2 * size[i] * size[j] / (size[i] + size[j]);
    std::vector<char> active(g, 1);
    std::vector<Merge> merges;
    merges.reserve(g);
    std::vector<size_t> chain;
    for (size_t remaining = g; remaining > 1; --remaining) {
        if (chain.empty())
            chain.push_back(size_t(std::find(active.begin(), active.end(), 1) - active.begin()));
        // Grow the chain until its last two are each other's nearest (the previous one wins
        // ties, so that the chain always ends).
        while (true) {
            const size_t a = chain.back();
            const size_t prev = chain.size() >= 2 ? chain[chain.size() - 2] : g;
            size_t b = prev;
            double best = prev < g ? dis[a * g + prev] : std::numeric_limits<double>::infinity();
            for (size_t j = 0; j < g; ++j)
                if (active[j] && j != a && dis[a * g + j] < best) best = dis[a * g + j], b = j;
            if (b == prev) break;
            chain.push_back(b);
        }
        size_t a = chain.back();
        chain.pop_back();
        size_t b = chain.back();
        chain.pop_back();
        if (b < a) std::swap(a, b);
        const double dab = dis[a * g + b];
        merges.push_back({dab, a, b});
        const double na = size[a], nb = size[b];
        for (size_t j = 0; j < g; ++j) {
            if (!active[j] || j == a || j == b) continue;
            const double nj = size[j], dja = dis[j * g + a], djb = dis[j * g + b];
            const double v = linkage == Linkage::Ward
                                 ? ((na + nj) * dja + (nb + nj) * djb - nj * dab) / (na + nb + nj)
                                 : (na * dja + nb * djb) / (na + nb);
            dis[j * g + a] = dis[a * g + j] = v;
        }
        active[b] = 0;
        size[a] += nb;
    }
    // The chain finds merges out of order; the dendrogram's order is by height.
    std::stable_sort(merges.begin(), merges.end(),
                     [](const Merge& x, const Merge& y) { return x.height < y.height; });
    std::vector<size_t> parent(g);
    std::iota(parent.begin(), parent.end(), size_t(0));
    for (size_t m = 0; m + k < g; ++m)
        parent[findRoot(parent, merges[m].b)] = findRoot(parent, merges[m].a);
    std::vector<int32_t> group(g, -1), ofRoot(g, -1);
    int32_t next = 0;
    for (size_t i = 0; i < g; ++i) {
        const size_t r = findRoot(parent, i);
        if (ofRoot[r] < 0) ofRoot[r] = next++;
        group[i] = ofRoot[r];
    }
    return group;
}

}  // namespace sepal
