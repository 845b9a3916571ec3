#include "core/cluster/dendrogram.h"

#include <cmath>
#include <limits>

namespace sepal {

Dendrogram clusterItems(const std::vector<float>& values, size_t n, size_t dims) {
    Dendrogram tree;
    tree.leaves = n;
    if (n <= 1) {
        for (size_t i = 0; i < n; ++i) tree.order.push_back(i);
        return tree;
    }
    const auto value = [&](size_t i, size_t t) {
        const float v = values[i * dims + t];
        return std::isfinite(v) ? double(v) : 0.0;
    };
    // Average linkage on a distance matrix that shrinks as clusters merge (n is a heatmap's
    // rows or columns: hundreds at most).
    std::vector<double> dist(n * n, 0.0);
    for (size_t a = 0; a < n; ++a)
        for (size_t b = a + 1; b < n; ++b) {
            double s = 0;
            for (size_t t = 0; t < dims; ++t)
                s += (value(a, t) - value(b, t)) * (value(a, t) - value(b, t));
            dist[a * n + b] = dist[b * n + a] = std::sqrt(s);
        }
    std::vector<size_t> id(n), size(n, 1);  // each live slot's cluster id and member count
    std::vector<bool> live(n, true);
    for (size_t i = 0; i < n; ++i) id[i] = i;
    for (size_t m = 0; m + 1 < n; ++m) {
        size_t bestA = 0, bestB = 0;
        double best = std::numeric_limits<double>::infinity();
        for (size_t a = 0; a < n; ++a)
            if (live[a])
                for (size_t b = a + 1; b < n; ++b)
                    if (live[b] && dist[a * n + b] < best)
                        best = dist[a * n + b], bestA = a, bestB = b;
        tree.merges.push_back({id[bestA], id[bestB], best});
        // The merged cluster takes slot bestA; its distance to each other cluster is the
        // average over members.
        for (size_t c = 0; c < n; ++c)
            if (live[c] && c != bestA && c != bestB) {
                const double d = (dist[bestA * n + c] * double(size[bestA]) +
                                  dist[bestB * n + c] * double(size[bestB])) /
                                 double(size[bestA] + size[bestB]);
                dist[bestA * n + c] = dist[c * n + bestA] = d;
            }
        size[bestA] += size[bestB];
        live[bestB] = false;
        id[bestA] = n + m;
    }
    // Leaves left to right: a depth-first walk from the last merge.
    std::vector<size_t> stack = {n + tree.merges.size() - 1};
    while (!stack.empty()) {
        const size_t node = stack.back();
        stack.pop_back();
        if (node < n) {
            tree.order.push_back(node);
            continue;
        }
        const DendrogramMerge& m = tree.merges[node - n];
        stack.push_back(m.right);
        stack.push_back(m.left);
    }
    return tree;
}

}  // namespace sepal
