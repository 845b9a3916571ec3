// The euclidean k-NN graph on the CPU the way the GPU finds it: single-precision candidates from
// the projection's blocked SIMD distance kernel (groupDistances, the difference form), then an
// exact re-rank in double precision in exactNeighbours' order. A query whose candidates cannot be
// proven to hold its k nearest (a point left out might be nearer, within the single-precision
// error) is done again exactly.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/knn/knn_graph.h"
#include "core/knn/landmark_tiles.h"

namespace sepal {

namespace {

constexpr size_t kMargin = 8;                      // candidates kept beyond k
constexpr size_t kMostBlock = 2048;                // references per transposed block, at most
constexpr size_t kBlockBytes = size_t(256) << 10;  // a block's values: within a core's L2
constexpr size_t kGroupsTogether = 16;  // query groups that share each block while it is cached
constexpr float kSmallest = 1e-37f;     // absolute error of a sum of subnormal squares, at most

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
    std::vector<LandmarkTiles> tiles(blocks);
#pragma omp parallel for schedule(static)
    for (long long b = 0; b < static_cast<long long>(blocks); ++b) {
        const size_t r0 = size_t(b) * block;
        tiles[size_t(b)].build(points.row(r0), std::min(block, n - r0), d);
    }
    size_t others = 0;  // usable points: a usable query's candidates when fewer than C
    for (uint8_t u : rows.usable) others += u;
    others = others > 0 ? others - 1 : 0;
    // A point left out has a single-precision key of at least the worst candidate's W: its exact
    // key is at least W / (1 + rel) - kSmallest (each of the d differences, squares and sums
    // rounds once, relative 2^-24).
    const double rel = 1.05 * double(d + 4) * std::ldexp(1.0, -24);
    std::vector<uint8_t> redo(queries.size(), 0);
    constexpr size_t kTogether = kGroupsTogether * kPointGroup;  // queries of a batch
    const long long batches = static_cast<long long>((queries.size() + kTogether - 1) / kTogether);
#pragma omp parallel
    {
        std::vector<float> dist(kPointGroup * std::max(block, kLandmarkBlock));
        std::vector<float> key(kTogether * C);
        std::vector<uint32_t> id(kTogether * C);
        std::vector<std::pair<double, uint32_t>> exact(C);
#pragma omp for schedule(dynamic, 1)
        for (long long batch = 0; batch < batches; ++batch) {
            const size_t u0 = size_t(batch) * kTogether;
            const size_t inBatch = std::min(kTogether, queries.size() - u0);
            const float* qrows[kTogether];
            size_t filled[kTogether];
            float worst[kTogether];
            for (size_t p = 0; p < kTogether; ++p) {
                qrows[p] = points.row(queries[u0 + std::min(p, inBatch - 1)]);
                filled[p] = 0;
                worst[p] = std::numeric_limits<float>::infinity();
            }
            for (size_t b = 0; b < blocks; ++b) {
                const LandmarkTiles& t = tiles[b];
                const uint32_t r0 = uint32_t(b * block);
                for (size_t g0 = 0; g0 < inBatch; g0 += kPointGroup) {
                    groupDistances(qrows + g0, t, dist.data());
                    for (size_t p = g0; p < std::min(g0 + kPointGroup, inBatch); ++p) {
                        const uint32_t q = queries[u0 + p];
                        if (!rows.usable[q]) continue;
                        const float* s = dist.data() + (p - g0) * t.gp;
                        float* kp = key.data() + p * C;
                        uint32_t* ip = id.data() + p * C;
                        size_t& m = filled[p];
                        for (size_t j = 0; j < t.g; ++j) {
                            if (!(s[j] < worst[p])) continue;  // NaN too: a missing value
                            const uint32_t r = r0 + uint32_t(j);
                            if (r == q || !rows.usable[r]) continue;
                            size_t at = m < C ? m++ : C - 1;
                            while (at > 0 && s[j] < kp[at - 1]) {
                                kp[at] = kp[at - 1];
                                ip[at] = ip[at - 1];
                                --at;
                            }
                            kp[at] = s[j];
                            ip[at] = r;
                            if (m == C) worst[p] = kp[C - 1];
                        }
                    }
                }
            }
            for (size_t p = 0; p < inBatch; ++p) {
                const uint32_t q = queries[u0 + p];
                if (!rows.usable[q]) continue;
                const size_t m = filled[p];
                for (size_t j = 0; j < m; ++j) {
                    const uint32_t r = id[p * C + j];
                    exact[j] = {knnKey(rows, q, r), r};
                }
                std::sort(exact.begin(), exact.begin() + long(m));
                const size_t kept = std::min(k, m);
                // Complete when every other usable point is a candidate, or when none left out
                // can come before the k-th.
                bool sure = m == others;
                if (m == C && kept == k) {
                    const double bound = double(key[p * C + C - 1]) / (1.0 + rel) - kSmallest;
                    sure = bound > exact[k - 1].first;
                }
                if (!sure) {
                    redo[u0 + p] = 1;
                    continue;
                }
                for (size_t j = 0; j < kept; ++j) {
                    g.neighbours[(q - g.first) * k + j] = exact[j].second;
                    g.distances[(q - g.first) * k + j] = knnDistance(exact[j].first, rows.metric);
                }
            }
        }
    }
    std::vector<uint32_t> again;
    for (size_t i = 0; i < queries.size(); ++i)
        if (redo[i]) again.push_back(queries[i]);
    if (!again.empty()) exactNeighbours(rows, again, g);
}

}  // namespace sepal
