#include "core/knn/knn_graph.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/common/error.h"
#include "core/io/atomic_file.h"

namespace sepal {

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr size_t kQueryTile = 64, kReferenceTile = 2048;

/// The rows prepared for the metric: cosine and pearson compare unit vectors (pearson's centred
/// first), so that every metric is a sum over columns of the prepared values.
std::vector<double> prepared(const Matrix& points, KnnMetric metric, std::vector<uint8_t>& usable) {
    const size_t n = points.rows, d = points.cols;
    std::vector<double> out(n * d);
    usable.assign(n, 1);
    for (size_t i = 0; i < n; ++i) {
        const float* r = points.row(i);
        double* o = out.data() + i * d;
        double mean = 0;
        for (size_t c = 0; c < d; ++c) {
            if (!std::isfinite(r[c])) usable[i] = 0;
            o[c] = r[c];
            mean += r[c];
        }
        if (!usable[i]) continue;
        if (metric == KnnMetric::Pearson)
            for (size_t c = 0; c < d; ++c) o[c] -= mean / double(d);
        if (metric == KnnMetric::Cosine || metric == KnnMetric::Pearson) {
            double norm = 0;
            for (size_t c = 0; c < d; ++c) norm += o[c] * o[c];
            norm = std::sqrt(norm);
            // A zero vector has no direction: it is taken as orthogonal to every other (1).
            for (size_t c = 0; c < d; ++c) o[c] = norm > 0 ? o[c] / norm : 0.0;
        }
    }
    return out;
}

/// The sum that orders neighbours, in double precision: squared differences (euclidean),
/// absolute differences (manhattan), or 1 - u.v of the unit vectors (cosine, pearson).
double orderKey(const double* a, const double* b, size_t d, KnnMetric metric) {
    double s = 0;
    switch (metric) {
        case KnnMetric::Euclidean:
            for (size_t c = 0; c < d; ++c) {
                const double t = a[c] - b[c];
                s += t * t;
            }
            return s;
        case KnnMetric::Manhattan:
            for (size_t c = 0; c < d; ++c) s += std::fabs(a[c] - b[c]);
            return s;
        case KnnMetric::Cosine:
        case KnnMetric::Pearson:
            break;
    }
    for (size_t c = 0; c < d; ++c) s += a[c] * b[c];
    return 1.0 - s;
}

/// The reported distance from the order key.
float reported(double key, KnnMetric metric) {
    return float(metric == KnnMetric::Euclidean ? std::sqrt(key) : key);
}

}  // namespace

KnnMetric knnMetricNamed(const std::string& name) {
    if (name == "euclidean") return KnnMetric::Euclidean;
    if (name == "cosine") return KnnMetric::Cosine;
    if (name == "pearson" || name == "correlation") return KnnMetric::Pearson;
    if (name == "manhattan") return KnnMetric::Manhattan;
    throw InputError("--metric " + name + ": use euclidean, cosine, pearson or manhattan");
}

KnnGraph knnGraph(const Matrix& points, size_t k, KnnMetric metric) {
    const size_t n = points.rows, d = points.cols;
    if (k == 0 || k >= n)
        throw InputError("k-NN graph: k = " + std::to_string(k) + " needs 1 <= k < " +
                         std::to_string(n) + " (the number of points)");
    if (n > size_t(kNone)) throw InputError("k-NN graph: more than 2^32 - 1 points");
    std::vector<uint8_t> usable;
    const std::vector<double> rows = prepared(points, metric, usable);
    KnnGraph g{n, k, std::vector<uint32_t>(n * k, kNone),
               std::vector<float>(n * k, std::numeric_limits<float>::quiet_NaN())};
    const long tiles = long((n + kQueryTile - 1) / kQueryTile);
#pragma omp parallel
    {
        // Per query of the tile: its k best so far, sorted, ties kept in index order (references
        // come in ascending order and only a strictly smaller key displaces).
        std::vector<double> keys(kQueryTile * k);
        std::vector<uint32_t> idx(kQueryTile * k);
        std::vector<size_t> filled(kQueryTile);
#pragma omp for schedule(dynamic, 1)
        for (long t = 0; t < tiles; ++t) {
            const size_t q0 = size_t(t) * kQueryTile, q1 = std::min(n, q0 + kQueryTile);
            std::fill(filled.begin(), filled.end(), 0);
            for (size_t r0 = 0; r0 < n; r0 += kReferenceTile) {
                const size_t r1 = std::min(n, r0 + kReferenceTile);
                for (size_t q = q0; q < q1; ++q) {
                    if (!usable[q]) continue;
                    const double* a = rows.data() + q * d;
                    double* key = keys.data() + (q - q0) * k;
                    uint32_t* id = idx.data() + (q - q0) * k;
                    size_t& m = filled[q - q0];
                    for (size_t r = r0; r < r1; ++r) {
                        if (r == q || !usable[r]) continue;
                        const double s = orderKey(a, rows.data() + r * d, d, metric);
                        if (m == k && !(s < key[k - 1])) continue;
                        size_t at = m < k ? m++ : k - 1;
                        while (at > 0 && s < key[at - 1]) {
                            key[at] = key[at - 1];
                            id[at] = id[at - 1];
                            --at;
                        }
                        key[at] = s;
                        id[at] = uint32_t(r);
                    }
                }
            }
            for (size_t q = q0; q < q1; ++q)
                for (size_t j = 0; j < filled[q - q0]; ++j) {
                    g.neighbours[q * k + j] = idx[(q - q0) * k + j];
                    g.distances[q * k + j] = reported(keys[(q - q0) * k + j], metric);
                }
        }
    }
    return g;
}

void writeKnnGraph(const std::string& path, const KnnGraph& g) {
    io::AtomicFile file(path);
    const bool binary = path.size() >= 4 && path.compare(path.size() - 4, 4, ".bin") == 0;
    if (binary) {
        // "SEPALKNN", version 1, n, k (uint64 each), then the indices and the distances.
        const uint64_t head[3] = {1, g.n, g.k};
        file.write("SEPALKNN", 8);
        file.write(head, sizeof head);
        file.write(g.neighbours.data(), g.neighbours.size() * sizeof(uint32_t));
        file.write(g.distances.data(), g.distances.size() * sizeof(float));
        file.commit();
        return;
    }
    std::string text;
    for (size_t j = 0; j < g.k; ++j)
        text += (j ? ",neighbour_" : "neighbour_") + std::to_string(j + 1);
    for (size_t j = 0; j < g.k; ++j) text += ",distance_" + std::to_string(j + 1);
    text += '\n';
    char number[32];
    for (size_t i = 0; i < g.n; ++i) {
        for (size_t j = 0; j < g.k; ++j) {
            if (j) text += ',';
            const uint32_t v = g.neighbours[i * g.k + j];
            if (v != kNone) text += std::to_string(v);
        }
        for (size_t j = 0; j < g.k; ++j) {
            const float v = g.distances[i * g.k + j];
            std::snprintf(number, sizeof number, ",%.9g", double(v));
            text += std::isfinite(v) ? number : ",NA";
        }
        text += '\n';
        if (text.size() > (size_t(1) << 22)) file.write(text), text.clear();
    }
    file.write(text);
    file.commit();
}

}  // namespace sepal
