#include "core/knn/knn_graph.h"

#include <omp.h>

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "core/common/error.h"
#include "core/common/sorted_insert.h"
#include "core/io/atomic_file.h"

namespace sepal {

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr size_t kQueryTile = 64, kReferenceTile = 2048;

/// The rows prepared for the metric: cosine and pearson compare unit vectors (pearson's centred
/// first), so that every metric is a sum over columns of the prepared values.
std::vector<double> prepared(const Matrix& points, KnnMetric metric, std::vector<uint8_t>& usable) {
    const size_t n = points.rows, d = points.cols;
    KnnRowScales scales = knnRowScales(points, metric);
    std::vector<double> out(n * d);
    const bool unit = metric == KnnMetric::Cosine || metric == KnnMetric::Pearson;
#pragma omp parallel for schedule(static)
    for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
        const size_t i = size_t(ii);
        if (!scales.usable[i]) continue;
        const float* r = points.row(i);
        double* o = out.data() + i * d;
        const double shift = scales.shift[i], norm = scales.norm[i];
        // A zero vector has no direction: it is taken as orthogonal to every other (1).
        for (size_t c = 0; c < d; ++c)
            o[c] = unit ? (norm > 0 ? (double(r[c]) - shift) / norm : 0.0) : double(r[c]);
    }
    usable = std::move(scales.usable);
    return out;
}

/// The squared differences of two rows summed in order, each difference taken in double.
template <class T>
double squaredSum(const T* a, const T* b, size_t d) {
    double s = 0;
    for (size_t c = 0; c < d; ++c) {
        const double t = double(a[c]) - double(b[c]);
        s += t * t;
    }
    return s;
}

/// The sum that orders neighbours, in double precision: squared differences (euclidean),
/// absolute differences (manhattan), or 1 - u.v of the unit vectors (cosine, pearson).
double orderKey(const double* a, const double* b, size_t d, KnnMetric metric) {
    double s = 0;
    switch (metric) {
        case KnnMetric::Euclidean:
            return squaredSum(a, b, d);
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

KnnRowScales knnRowScales(RowsView points, KnnMetric metric) {
    const size_t n = points.rows, d = points.cols;
    KnnRowScales s{std::vector<uint8_t>(n, 1), std::vector<double>(n, 0.0),
                   std::vector<double>(n, 1.0)};
#pragma omp parallel for schedule(static)
    for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
        const size_t i = size_t(ii);
        const float* r = points.row(i);
        double mean = 0;
        for (size_t c = 0; c < d; ++c) {
            if (!std::isfinite(r[c])) s.usable[i] = 0;
            mean += r[c];
        }
        if (!s.usable[i] || (metric != KnnMetric::Cosine && metric != KnnMetric::Pearson)) continue;
        if (metric == KnnMetric::Pearson) s.shift[i] = mean / double(d);
        double norm = 0;
        for (size_t c = 0; c < d; ++c) {
            const double o = double(r[c]) - s.shift[i];
            norm += o * o;
        }
        s.norm[i] = std::sqrt(norm);
    }
    return s;
}

KnnRows knnRows(const Matrix& points, KnnMetric metric) {
    KnnRows rows;
    rows.n = points.rows;
    rows.d = points.cols;
    rows.metric = metric;
    rows.values = prepared(points, metric, rows.usable);
    return rows;
}

double knnKey(const KnnRows& rows, size_t a, size_t b) {
    return orderKey(rows.values.data() + a * rows.d, rows.values.data() + b * rows.d, rows.d,
                    rows.metric);
}

namespace {
/// The squared euclidean keys of row a of `values` (rows of d, float or double) against rows
/// b[0..3], a lane each: every lane sums in squaredSum's order with its roundings, so the keys
/// are the same bits; four sums side by side, as one sum's additions wait on each other.
template <class T>
__attribute__((target("avx2"))) void squaredKeys4(const T* values, size_t d, size_t a,
                                                  const uint32_t* b, double* keys) {
    const T* x = values + a * d;
    const T* y[4];
    for (int l = 0; l < 4; ++l) y[l] = values + size_t(b[l]) * d;
    __m256d s = _mm256_setzero_pd();
    for (size_t c = 0; c < d; ++c) {
        const __m256d t = _mm256_sub_pd(
            _mm256_set1_pd(double(x[c])),
            _mm256_setr_pd(double(y[0][c]), double(y[1][c]), double(y[2][c]), double(y[3][c])));
        s = _mm256_add_pd(s, _mm256_mul_pd(t, t));
    }
    _mm256_storeu_pd(keys, s);
}
}  // namespace

double squaredKey(const float* a, const float* b, size_t d) {
    return squaredSum(a, b, d);
}

void squaredKeys(RowsView rows, size_t a, const uint32_t* b, size_t count, double* keys) {
    static const bool avx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
    size_t i = 0;
    if (avx2)
        for (; i + 4 <= count; i += 4) squaredKeys4(rows.values, rows.cols, a, b + i, keys + i);
    for (; i < count; ++i) keys[i] = squaredKey(rows.row(a), rows.row(b[i]), rows.cols);
}

void knnKeys(const KnnRows& rows, size_t a, const uint32_t* b, size_t count, double* keys) {
    static const bool avx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
    size_t i = 0;
    if (rows.metric == KnnMetric::Euclidean && avx2)
        for (; i + 4 <= count; i += 4) squaredKeys4(rows.values.data(), rows.d, a, b + i, keys + i);
    for (; i < count; ++i) keys[i] = knnKey(rows, a, b[i]);
}

float knnDistance(double key, KnnMetric metric) {
    return reported(key, metric);
}

KnnGraph emptyKnnGraph(size_t n, size_t k, size_t first, size_t last) {
    if (k == 0 || k >= n)
        throw InputError("k-NN graph: k = " + std::to_string(k) + " needs 1 <= k < " +
                         std::to_string(n) + " (the number of points)");
    if (n > size_t(kNone)) throw InputError("k-NN graph: more than 2^32 - 1 points");
    if (last == SIZE_MAX) last = n;
    if (first > last || last > n)
        throw InputError("k-NN graph: rows " + std::to_string(first) + " to " +
                         std::to_string(last) + " of " + std::to_string(n));
    const size_t rows = last - first;
    return KnnGraph{n, k, first, std::vector<uint32_t>(rows * k, kNone),
                    std::vector<float>(rows * k, std::numeric_limits<float>::quiet_NaN())};
}

std::vector<uint32_t> rowsOf(const KnnGraph& g) {
    std::vector<uint32_t> rows(g.rows());
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = uint32_t(g.first + i);
    return rows;
}

void exactNeighbours(const KnnRows& rows, const std::vector<uint32_t>& queries, KnnGraph& g) {
    const size_t n = rows.n, d = rows.d, k = g.k;
    const KnnMetric metric = rows.metric;
    const auto& usable = rows.usable;
    const long tiles = long((queries.size() + kQueryTile - 1) / kQueryTile);
#pragma omp parallel
    {
        // Per query of the tile: its k best so far, sorted, ties kept in index order (references
        // come in ascending order and only a strictly smaller key displaces).
        std::vector<double> keys(kQueryTile * k);
        std::vector<uint32_t> idx(kQueryTile * k);
        std::vector<size_t> filled(kQueryTile);
#pragma omp for schedule(dynamic, 1)
        for (long t = 0; t < tiles; ++t) {
            const size_t t0 = size_t(t) * kQueryTile,
                         t1 = std::min(queries.size(), t0 + kQueryTile);
            std::fill(filled.begin(), filled.end(), 0);
            for (size_t r0 = 0; r0 < n; r0 += kReferenceTile) {
                const size_t r1 = std::min(n, r0 + kReferenceTile);
                for (size_t u = t0; u < t1; ++u) {
                    const size_t q = queries[u];
                    if (!usable[q]) continue;
                    const double* a = rows.values.data() + q * d;
                    double* key = keys.data() + (u - t0) * k;
                    uint32_t* id = idx.data() + (u - t0) * k;
                    size_t& m = filled[u - t0];
                    for (size_t r = r0; r < r1; ++r) {
                        if (r == q || !usable[r]) continue;
                        const double s = orderKey(a, rows.values.data() + r * d, d, metric);
                        if (m == k && !(s < key[k - 1])) continue;
                        insertSorted(s, uint32_t(r), k, m, key, id);
                    }
                }
            }
            for (size_t u = t0; u < t1; ++u) {
                const size_t q = queries[u];
                for (size_t j = 0; j < filled[u - t0]; ++j) {
                    g.neighbours[(q - g.first) * k + j] = idx[(u - t0) * k + j];
                    g.distances[(q - g.first) * k + j] = reported(keys[(u - t0) * k + j], metric);
                }
            }
        }
    }
}

namespace {
/// The rows of g, by the fastest exact way for the metric.
void neighboursOf(const Matrix& points, KnnMetric metric, KnnGraph& g) {
    const KnnRows rows = knnRows(points, metric);
    if (metric == KnnMetric::Euclidean)
        euclideanNeighbours(points, rows, rowsOf(g), g);
    else
        exactNeighbours(rows, rowsOf(g), g);
}
}  // namespace

KnnGraph knnGraph(const Matrix& points, size_t k, KnnMetric metric) {
    KnnGraph g = emptyKnnGraph(points.rows, k);
    neighboursOf(points, metric, g);
    return g;
}

namespace {
class CpuKnnGraphBuilder : public KnnGraphBuilder {
  public:
    std::string name() const override { return "cpu"; }
    KnnGraph buildRows(const Matrix& points, size_t k, KnnMetric metric, size_t first,
                       size_t last) override {
        KnnGraph g = emptyKnnGraph(points.rows, k, first, last);
        neighboursOf(points, metric, g);
        return g;
    }
};
}  // namespace

std::unique_ptr<KnnGraphBuilder> makeCpuKnnGraphBuilder() {
    return std::make_unique<CpuKnnGraphBuilder>();
}

void writeKnnGraph(const std::string& path, const KnnGraph& g) {
    if (g.first != 0 || g.rows() != g.n)
        throw std::logic_error("writeKnnGraph: a share of a graph (rows " +
                               std::to_string(g.first) + " to " +
                               std::to_string(g.first + g.rows()) + ")");
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
