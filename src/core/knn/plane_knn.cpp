#include "core/knn/plane_knn.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.h"

namespace sepal {

namespace {

constexpr size_t kLeafPoints = 16;
constexpr uint32_t kParallelPoints = 1 << 13;  // ranges whose halves are built as tasks

/// A box of the tree: its points are order[begin, end); an inner node's children split them.
struct Node {
    double lo[2], hi[2];
    uint32_t begin, end;
    int32_t left = -1, right = -1;
};

/// The tree over the usable points (coordinates from the prepared rows).
class PlaneTree {
  public:
    explicit PlaneTree(const KnnRows& rows) : m_rows(rows) {
        for (size_t i = 0; i < rows.n; ++i)
            if (rows.usable[i]) m_order.push_back(uint32_t(i));
        if (m_order.empty()) return;
        const uint32_t n = uint32_t(m_order.size());
        m_nodes.resize(nodesFor(n));
        // The halves of large ranges are built at once on other cores.
#pragma omp parallel
#pragma omp single
        build(0, 0, n);
        // The coordinates in the tree's order: a leaf's points lie side by side.
        m_xy.resize(2 * m_order.size());
        for (size_t e = 0; e < m_order.size(); ++e) {
            m_xy[2 * e] = at(m_order[e])[0];
            m_xy[2 * e + 1] = at(m_order[e])[1];
        }
    }

    /// The k nearest usable points other than q, by (key, index), into key/id; how many.
    size_t nearest(uint32_t q, size_t k, double* key, uint32_t* id) const {
        if (m_nodes.empty()) return 0;
        const double* a = at(q);
        size_t filled = 0;
        // (node, lower bound of its keys); children pushed farther first.
        std::vector<std::pair<int32_t, double>>& stack = scratch();
        stack.clear();
        stack.push_back({0, 0.0});
        while (!stack.empty()) {
            const auto [index, bound] = stack.back();
            stack.pop_back();
            // A box whose bound equals the k-th key may still hold a lower index at that key.
            if (filled == k && bound > key[k - 1]) continue;
            const Node& node = m_nodes[size_t(index)];
            if (node.left < 0) {
                for (uint32_t e = node.begin; e < node.end; ++e) {
                    const uint32_t p = m_order[e];
                    if (p == q) continue;
                    const double s = squaredKey(a, &m_xy[2 * size_t(e)]);
                    if (filled == k && !before(s, p, key[k - 1], id[k - 1])) continue;
                    size_t pos = filled < k ? filled++ : k - 1;
                    while (pos > 0 && before(s, p, key[pos - 1], id[pos - 1])) {
                        key[pos] = key[pos - 1];
                        id[pos] = id[pos - 1];
                        --pos;
                    }
                    key[pos] = s;
                    id[pos] = p;
                }
                continue;
            }
            const double toLeft = boxKey(a, m_nodes[size_t(node.left)]);
            const double toRight = boxKey(a, m_nodes[size_t(node.right)]);
            if (toLeft <= toRight) {
                stack.push_back({node.right, toRight});
                stack.push_back({node.left, toLeft});
            } else {
                stack.push_back({node.left, toLeft});
                stack.push_back({node.right, toRight});
            }
        }
        return filled;
    }

  private:
    const double* at(uint32_t p) const {
        return m_rows.values.data() + size_t(p) * 2;
    }

    /// knnKey of two points of the plane (its sum (0 + t0^2) + t1^2 rounds as t0^2 + t1^2).
    static double squaredKey(const double* a, const double* b) {
        const double t0 = a[0] - b[0], t1 = a[1] - b[1];
        return t0 * t0 + t1 * t1;
    }

    static bool before(double s, uint32_t p, double key, uint32_t id) {
        return s < key || (s == key && p < id);
    }

    /// A lower bound of the key of a to any point in the node's box: the key to the box's point
    /// nearest a, summed by the same function, so that rounding keeps it at or below every key.
    static double boxKey(const double* a, const Node& node) {
        const double nearest[2] = {std::clamp(a[0], node.lo[0], node.hi[0]),
                                   std::clamp(a[1], node.lo[1], node.hi[1])};
        return squaredKey(a, nearest);
    }

    static std::vector<std::pair<int32_t, double>>& scratch() {
        thread_local std::vector<std::pair<int32_t, double>> stack;
        return stack;
    }

    /// Nodes of the tree over `points` points (a leaf, or a node and the trees of its halves).
    static size_t nodesFor(uint32_t points) {
        if (points <= kLeafPoints) return 1;
        return 1 + nodesFor(points / 2) + nodesFor(points - points / 2);
    }

    /// Builds node `index` over m_order[begin, end) and its subtrees, laid out depth first: the
    /// left subtree from index + 1, the right one after it.
    void build(int32_t index, uint32_t begin, uint32_t end) {
        Node node;
        node.begin = begin, node.end = end;
        for (int c = 0; c < 2; ++c) {
            node.lo[c] = std::numeric_limits<double>::infinity();
            node.hi[c] = -std::numeric_limits<double>::infinity();
        }
        for (uint32_t e = begin; e < end; ++e)
            for (int c = 0; c < 2; ++c) {
                node.lo[c] = std::min(node.lo[c], at(m_order[e])[c]);
                node.hi[c] = std::max(node.hi[c], at(m_order[e])[c]);
            }
        if (end - begin > kLeafPoints) {
            // Split the wider side at the median.
            const int c = node.hi[0] - node.lo[0] >= node.hi[1] - node.lo[1] ? 0 : 1;
            const uint32_t mid = begin + (end - begin) / 2;
            std::nth_element(m_order.begin() + begin, m_order.begin() + mid, m_order.begin() + end,
                             [&](uint32_t x, uint32_t y) { return at(x)[c] < at(y)[c]; });
            node.left = index + 1;
            node.right = index + 1 + int32_t(nodesFor(mid - begin));
            if (end - begin > kParallelPoints) {
#pragma omp task
                build(node.left, begin, mid);
                build(node.right, mid, end);
#pragma omp taskwait
            } else {
                build(node.left, begin, mid);
                build(node.right, mid, end);
            }
        }
        m_nodes[size_t(index)] = node;
    }

    const KnnRows& m_rows;
    std::vector<uint32_t> m_order;
    std::vector<double> m_xy;  // the points' coordinates in m_order's order
    std::vector<Node> m_nodes;
};

}  // namespace

KnnGraph planeKnnGraph(const Matrix& points, size_t k) {
    if (points.cols != 2)
        throw InputError("plane k-NN graph: " + std::to_string(points.cols) +
                         " columns, two expected");
    KnnGraph g = emptyKnnGraph(points.rows, k);
    const KnnRows rows = knnRows(points, KnnMetric::Euclidean);
    const PlaneTree tree(rows);
    const long long n = static_cast<long long>(points.rows);
#pragma omp parallel
    {
        std::vector<double> key(k);
        std::vector<uint32_t> id(k);
#pragma omp for schedule(dynamic, 512)
        for (long long ii = 0; ii < n; ++ii) {
            const uint32_t q = uint32_t(ii);
            if (!rows.usable[q]) continue;
            const size_t found = tree.nearest(q, k, key.data(), id.data());
            for (size_t j = 0; j < found; ++j) {
                g.neighbours[size_t(q) * k + j] = id[j];
                g.distances[size_t(q) * k + j] = knnDistance(key[j], KnnMetric::Euclidean);
            }
        }
    }
    return g;
}

}  // namespace sepal
