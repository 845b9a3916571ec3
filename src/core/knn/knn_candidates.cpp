// The euclidean k-NN graph on the CPU the way the GPU finds it: single-precision candidates, then
// an exact re-rank in double precision in exactNeighbours' order. A query whose candidates cannot
// be proven to hold its k nearest (a point left out might be nearer, within the single-precision
// error) is done again exactly. The candidates' keys come from the projection's blocked SIMD
// distance kernel (groupDistances, the difference form) for narrow rows, and from the
// dot-product form (groupDotKeys, a third of the arithmetic) for rows of kDotColumns or more, on
// a copy of the data centred on its mean, where the form's error (which grows with the norms)
// is smallest.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/common/sorted_insert.h"
#include "core/knn/knn_graph.h"
#include "core/knn/landmark_tiles.h"

namespace sepal {

namespace {

constexpr size_t kMargin = 8;                      // candidates kept beyond k
constexpr size_t kMostBlock = 2048;                // references per transposed block, at most
constexpr size_t kBlockBytes = size_t(256) << 10;  // a block's values: within a core's L2
constexpr size_t kGroupsTogether = 16;  // query groups that share each block while it is cached
constexpr float kSmallest = 1e-37f;     // absolute error of a sum of subnormal squares, at most
constexpr size_t kDotColumns = 64;      // rows this wide take the dot-product form

/// The data centred on the mean of the usable rows (distances are unchanged; the dot-product
/// form's error, which grows with the norms, shrinks), each row's squared norm (padded with
/// zeros to whole blocks) and the largest norm.
struct Centred {
    std::vector<float> values;  ///< n x d
    std::vector<float> norm2;   ///< per row, then zeros
    double largest = 0;         ///< the largest norm of a usable row
};

Centred centred(const Matrix& points, const std::vector<uint8_t>& usable, size_t padded) {
    const size_t n = points.rows, d = points.cols;
    std::vector<double> mean(d, 0.0);
    size_t count = 0;
    for (size_t i = 0; i < n; ++i)
        if (usable[i]) {
            for (size_t t = 0; t < d; ++t) mean[t] += double(points.row(i)[t]);
            ++count;
        }
    for (double& m : mean) m /= double(std::max<size_t>(count, 1));
    Centred c;
    c.values.assign(n * d, 0.0f);
    c.norm2.assign(std::max(n, padded), 0.0f);
    double largest2 = 0.0;
#pragma omp parallel for schedule(static) reduction(max : largest2)
    for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
        const size_t i = size_t(ii);
        if (!usable[i]) continue;
        float* out = c.values.data() + i * d;
        double sum = 0.0;
        for (size_t t = 0; t < d; ++t) {
            out[t] = float(double(points.row(i)[t]) - mean[t]);
            sum += double(out[t]) * double(out[t]);
        }
        c.norm2[i] = float(sum);
        largest2 = std::max(largest2, sum);
    }
    c.largest = std::sqrt(largest2);
    return c;
}

/// The least exact squared distance from a query (its centred row x) that a reference left out
/// of its candidates can have, when the worst candidate's dot-product key is W: the centred
/// rows' distance is at least |x|^2 + W - E, and centring rounded each row by at most 2^-24 of
/// its norm; 1e-9 less for the double sums' roundings.
double dotFormBound(const float* x, size_t d, double worst, double gammaD, double largest) {
    const double u = std::ldexp(1.0, -24);
    double q2 = 0.0;
    for (size_t t = 0; t < d; ++t) q2 += double(x[t]) * double(x[t]);
    const double q = std::sqrt(q2);
    // Subnormal products and sums lose more than their relative share: an absolute kSmallest a
    // term, as the difference form allows.
    const double error =
        1.01 * ((2.0 * gammaD + 2.0 * u) * q * largest + 2.0 * u * largest * largest) +
        4.0 * double(d + 4) * kSmallest;
    const double centred2 = q2 + worst - error;
    if (!(centred2 > 0.0)) return -std::numeric_limits<double>::infinity();
    const double root = std::sqrt(centred2) - 2.0001 * u * largest;
    return root > 0.0 ? root * root * (1.0 - 1e-9) : -std::numeric_limits<double>::infinity();
}

/// What proves a query's candidates complete (see euclideanNeighbours).
struct CandidateProof {
    bool dot = false;               ///< the keys are the dot-product form's
    const float* source = nullptr;  ///< the rows the keys were computed from (centred for dot)
    size_t d = 0;                   ///< columns
    double rel = 0;                 ///< the difference form's relative error
    double gammaD = 0;              ///< the dot-product form's gamma_d
    double largest = 0;             ///< the largest centred norm
    size_t others = 0;              ///< usable points other than a usable query
};

/// Query q's m candidates (float keys ascending, ids) re-ranked exactly: writes its row of g and
/// returns true when they are proven to hold its k nearest, else false (to be found exactly).
bool finishQuery(const KnnRows& rows, uint32_t q, const float* key, const uint32_t* id, size_t m,
                 size_t C, const CandidateProof& proof, std::vector<double>& exactKeys,
                 std::vector<std::pair<double, uint32_t>>& exact, KnnGraph& g) {
    const size_t k = g.k;
    knnKeys(rows, q, id, m, exactKeys.data());
    for (size_t j = 0; j < m; ++j) exact[j] = {exactKeys[j], id[j]};
    std::sort(exact.begin(), exact.begin() + long(m));
    const size_t kept = std::min(k, m);
    // Complete when every other usable point is a candidate, or when none left out can come
    // before the k-th.
    bool sure = m == proof.others;
    if (m == C && kept == k) {
        const double worstKey = double(key[C - 1]);
        sure = (proof.dot ? dotFormBound(proof.source + size_t(q) * proof.d, proof.d, worstKey,
                                         proof.gammaD, proof.largest)
                          : worstKey / (1.0 + proof.rel) - kSmallest) > exact[k - 1].first;
    }
    if (!sure) return false;
    for (size_t j = 0; j < kept; ++j) {
        g.neighbours[(q - g.first) * k + j] = exact[j].second;
        g.distances[(q - g.first) * k + j] = knnDistance(exact[j].first, rows.metric);
    }
    return true;
}

/// Every row's C best candidates by float key (ascending), as one thread finds them.
struct CandidateLists {
    size_t C = 0;
    std::vector<float> key;      ///< rows x C
    std::vector<uint32_t> id;    ///< rows x C
    std::vector<size_t> filled;  ///< per row
    std::vector<float> worst;    ///< per row: the C-th key once C are held, else infinity

    CandidateLists(size_t rows, size_t c)
        : C(c),
          key(rows * c),
          id(rows * c),
          filled(rows, 0),
          worst(rows, std::numeric_limits<float>::infinity()) {}

    /// Empties every row.
    void clear() {
        std::fill(filled.begin(), filled.end(), size_t(0));
        std::fill(worst.begin(), worst.end(), std::numeric_limits<float>::infinity());
    }

    /// Offers reference r at key s to row i.
    void offer(size_t i, float s, uint32_t r) {
        if (!(s < worst[i])) return;
        insertSorted(s, r, C, filled[i], key.data() + i * C, id.data() + i * C);
        if (filled[i] == C) worst[i] = key[i * C + C - 1];
    }
};

/// The candidates of every row when every row is a query, in the dot-product form: each pair of
/// reference blocks (a <= b) once, each pair's dot product giving both rows their keys (half the
/// arithmetic of one query after another), into per-thread lists merged at the end. A point left
/// out has a key at least the merged C-th: its thread's list kept C at or below its own C-th,
/// which is at least the merged one.
CandidateLists symmetricCandidates(const std::vector<LandmarkTiles>& tiles, size_t block,
                                   const Centred& centre, const std::vector<uint8_t>& usable,
                                   size_t n, size_t d, size_t C) {
    const size_t blocks = tiles.size();
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (size_t a = 0; a < blocks; ++a)
        for (size_t b = a; b < blocks; ++b) pairs.emplace_back(uint32_t(a), uint32_t(b));
    const std::vector<float> zeros(block + kLandmarkBlock, 0.0f);
    std::vector<CandidateLists> lists;
    const int threads = omp_get_max_threads();
    for (int t = 0; t < threads; ++t) lists.emplace_back(n, C);
#pragma omp parallel num_threads(threads)
    {
        CandidateLists& mine = lists[size_t(omp_get_thread_num())];
        std::vector<float> dots(kPointGroup * std::max(block, kLandmarkBlock));
#pragma omp for schedule(dynamic, 1)
        for (long long task = 0; task < static_cast<long long>(pairs.size()); ++task) {
            const size_t a = pairs[size_t(task)].first, b = pairs[size_t(task)].second;
            const LandmarkTiles& t = tiles[b];
            const size_t a0 = a * block, a1 = std::min(n, a0 + block), r0 = b * block;
            for (size_t g0 = a0; g0 < a1; g0 += kPointGroup) {
                const float* qrows[kPointGroup];
                for (size_t p = 0; p < kPointGroup; ++p)
                    qrows[p] = centre.values.data() + std::min(g0 + p, a1 - 1) * d;
                // With zero norms the keys are -2 x.y exactly; a norm added rounds once, as the
                // kernel's key does.
                groupDotKeys(qrows, t, zeros.data(), dots.data());
                for (size_t p = 0; p < kPointGroup && g0 + p < a1; ++p) {
                    const size_t i = g0 + p;
                    if (!usable[i]) continue;
                    const float* dp = dots.data() + p * t.gp;
                    for (size_t j = 0; j < t.g; ++j) {
                        const size_t r = r0 + j;
                        if (!usable[r] || r == i) continue;
                        mine.offer(i, centre.norm2[r] + dp[j], uint32_t(r));
                        // Within one block every pair is met from both sides already.
                        if (a != b) mine.offer(r, centre.norm2[i] + dp[j], uint32_t(i));
                    }
                }
            }
        }
    }
    // Each row's C smallest keys over the threads' lists (ties by index: any thread count
    // proves the same way).
#pragma omp parallel
    {
        std::vector<std::pair<float, uint32_t>> all;
#pragma omp for schedule(static)
        for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
            const size_t i = size_t(ii);
            all.clear();
            for (const CandidateLists& l : lists)
                for (size_t c = 0; c < l.filled[i]; ++c)
                    all.emplace_back(l.key[i * C + c], l.id[i * C + c]);
            const size_t m = std::min(all.size(), C);
            std::partial_sort(all.begin(), all.begin() + long(m), all.end());
            for (size_t c = 0; c < m; ++c)
                lists[0].key[i * C + c] = all[c].first, lists[0].id[i * C + c] = all[c].second;
            lists[0].filled[i] = m;
        }
    }
    return std::move(lists[0]);
}

/// The candidates of `queries`, a batch of them at a time against every block of references in
/// turn (norms: the dot-product form's, null for the difference form), each batch finished at
/// once; redo[u] is set for queries[u] when its candidates are not proven complete.
void oneQueryAfterAnother(const std::vector<uint32_t>& queries,
                          const std::vector<LandmarkTiles>& tiles, size_t block, const float* norms,
                          const float* source, const KnnRows& rows, size_t C,
                          const CandidateProof& proof, std::vector<uint8_t>& redo, KnnGraph& g) {
    const size_t d = rows.d, blocks = tiles.size();
    constexpr size_t kTogether = kGroupsTogether * kPointGroup;  // queries of a batch
    const long long batches = static_cast<long long>((queries.size() + kTogether - 1) / kTogether);
#pragma omp parallel
    {
        std::vector<float> dist(kPointGroup * std::max(block, kLandmarkBlock));
        CandidateLists batchLists(kTogether, C);
        std::vector<std::pair<double, uint32_t>> exact(C);
        std::vector<double> exactKeys(C);
#pragma omp for schedule(dynamic, 1)
        for (long long batch = 0; batch < batches; ++batch) {
            const size_t u0 = size_t(batch) * kTogether;
            const size_t inBatch = std::min(kTogether, queries.size() - u0);
            const float* qrows[kTogether];
            for (size_t p = 0; p < kTogether; ++p)
                qrows[p] = source + size_t(queries[u0 + std::min(p, inBatch - 1)]) * d;
            batchLists.clear();
            for (size_t b = 0; b < blocks; ++b) {
                const LandmarkTiles& t = tiles[b];
                const uint32_t r0 = uint32_t(b * block);
                for (size_t g0 = 0; g0 < inBatch; g0 += kPointGroup) {
                    if (norms)
                        groupDotKeys(qrows + g0, t, norms + r0, dist.data());
                    else
                        groupDistances(qrows + g0, t, dist.data());
                    for (size_t p = g0; p < std::min(g0 + kPointGroup, inBatch); ++p) {
                        const uint32_t q = queries[u0 + p];
                        if (!rows.usable[q]) continue;
                        const float* s = dist.data() + (p - g0) * t.gp;
                        for (size_t j = 0; j < t.g; ++j) {
                            if (!(s[j] < batchLists.worst[p]))
                                continue;  // NaN too: a missing value
                            const uint32_t r = r0 + uint32_t(j);
                            if (r != q && rows.usable[r]) batchLists.offer(p, s[j], r);
                        }
                    }
                }
            }
            for (size_t p = 0; p < inBatch; ++p) {
                const uint32_t q = queries[u0 + p];
                if (!rows.usable[q]) continue;
                redo[u0 + p] = !finishQuery(rows, q, batchLists.key.data() + p * C,
                                            batchLists.id.data() + p * C, batchLists.filled[p], C,
                                            proof, exactKeys, exact, g);
            }
        }
    }
}

}  // namespace

void euclideanNeighbours(const Matrix& points, const KnnRows& rows,
                         const std::vector<uint32_t>& queries, KnnGraph& g) {
    const size_t n = points.rows, d = points.cols, k = g.k;
    const size_t C = std::min(k + kMargin, n > 0 ? n - 1 : 0);
    // The references as transposed blocks small enough to stay in a core's cache while
    // kGroupsTogether groups of queries use them (wide rows: fewer references a block); a
    // reference with a missing value is never offered.
    const size_t block = std::clamp(
        kBlockBytes / (sizeof(float) * std::max<size_t>(d, 1)) / kLandmarkBlock * kLandmarkBlock,
        kLandmarkBlock, kMostBlock);
    const size_t blocks = (n + block - 1) / block;
    const bool dot = d >= kDotColumns;
    const Centred centre =
        dot ? centred(points, rows.usable, blocks * block + kLandmarkBlock) : Centred{};
    const float* source = dot ? centre.values.data() : points.data();
    std::vector<LandmarkTiles> tiles(blocks);
#pragma omp parallel for schedule(static)
    for (long long b = 0; b < static_cast<long long>(blocks); ++b) {
        const size_t r0 = size_t(b) * block;
        tiles[size_t(b)].build(source + r0 * d, std::min(block, n - r0), d);
    }
    size_t others = 0;  // usable points: a usable query's candidates when fewer than C
    for (uint8_t u : rows.usable) others += u;
    others = others > 0 ? others - 1 : 0;
    // A point left out has a single-precision key of at least the worst candidate's W: its exact
    // key is at least W / (1 + rel) - kSmallest (each of the d differences, squares and sums
    // rounds once, relative 2^-24).
    const double rel = 1.05 * double(d + 4) * std::ldexp(1.0, -24);
    // The dot-product form's key K = |y|^2 - 2 x.y of centred rows is within
    // E = (2 gamma_d + 2u) |x| R + 2u R^2 of its exact value (u = 2^-24, gamma_d = d u / (1 - d u),
    // R the largest norm: the dot product's terms, the stored norm and the last subtraction each
    // rounding); dotFormBound takes it 1% wider.
    const double u = std::ldexp(1.0, -24), gammaD = double(d) * u / (1.0 - double(d) * u);
    const CandidateProof proof{dot, source, d, rel, gammaD, centre.largest, others};
    std::vector<uint8_t> redo(queries.size(), 0);
    // Every row a query (the whole graph), in the dot-product form, and the threads' lists fit
    // in a gigabyte: each pair's product once.
    bool everyRow = dot && queries.size() == n;
    for (size_t i = 0; everyRow && i < n; ++i) everyRow = queries[i] == i;
    const double listBytes = double(n) * double(C * 8 + 8) * omp_get_max_threads();
    if (everyRow && listBytes <= double(size_t(1) << 30)) {
        const CandidateLists lists =
            symmetricCandidates(tiles, block, centre, rows.usable, n, d, C);
#pragma omp parallel
        {
            std::vector<std::pair<double, uint32_t>> exact(C);
            std::vector<double> exactKeys(C);
#pragma omp for schedule(dynamic, 256)
            for (long long qq = 0; qq < static_cast<long long>(n); ++qq) {
                const uint32_t q = uint32_t(qq);
                if (!rows.usable[q]) continue;
                redo[q] = !finishQuery(rows, q, lists.key.data() + size_t(q) * C,
                                       lists.id.data() + size_t(q) * C, lists.filled[q], C, proof,
                                       exactKeys, exact, g);
            }
        }
    } else {
        oneQueryAfterAnother(queries, tiles, block, dot ? centre.norm2.data() : nullptr, source,
                             rows, C, proof, redo, g);
    }
    std::vector<uint32_t> again;
    for (size_t i = 0; i < queries.size(); ++i)
        if (redo[i]) again.push_back(queries[i]);
    if (!again.empty()) exactNeighbours(rows, again, g);
}

}  // namespace sepal
