#include "core/knn/lloyd_assigner.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/knn/landmark_groups.h"
#include "core/knn/nearest_blocks.h"

namespace sepal {

namespace {

/// Past this many (point, block) bounds (8 bytes each) every assign searches afresh instead.
constexpr size_t kMaxBounds = size_t(1) << 23;

/// The largest value that is <= r's exact value when r is a rounded double sum or difference.
double roundedDown(double r) {
    return r - std::fabs(r) * 0x1p-52;
}
/// The smallest value that is >= r's exact value when r is a rounded double sum or difference.
double roundedUp(double r) {
    return r + std::fabs(r) * 0x1p-52;
}

}  // namespace

LloydAssigner::LloydAssigner(const float* points, size_t n, size_t d)
    : m_points(points), m_n(n), m_d(d) {}

void LloydAssigner::groupCentres(const float* centres) {
    const size_t g = m_g;
    m_order = groupLandmarks(centres, g, m_d, kLandmarkBlock);
    m_blockOf.resize(g);
    for (size_t c = 0; c < g; ++c)
        m_blockOf[m_order[c]] = static_cast<uint32_t>(c / kLandmarkBlock);
    m_columnOf.assign(m_blocks * kLandmarkBlock, std::numeric_limits<uint32_t>::max());
    std::copy(m_order.begin(), m_order.end(), m_columnOf.begin());
}

void LloydAssigner::loosenBounds(const float* centres) {
    const size_t g = m_g, d = m_d, blocks = m_blocks;
    // How far each centre moved, rounded up: a point's distance to a centre changes by no more.
    std::vector<double> moved(g), blockMoved(blocks, 0.0);
    const double slack = 1.0 + double(d + 8) * 0x1p-52;
    for (size_t j = 0; j < g; ++j) {
        double s = 0.0;
        for (size_t t = 0; t < d; ++t) {
            const double e = double(centres[j * d + t]) - double(m_previous[j * d + t]);
            s += e * e;
        }
        const double m = std::sqrt(s) * slack;
        moved[j] = std::isnan(m) ? std::numeric_limits<double>::infinity() : m;
        blockMoved[m_blockOf[j]] = std::max(blockMoved[m_blockOf[j]], moved[j]);
    }
    for (size_t i = 0; i < m_n; ++i) {
        m_upper[i] = roundedUp(m_upper[i] + moved[m_assigned[i]]);
        double* lower = m_lower.data() + i * blocks;
        for (size_t b = 0; b < blocks; ++b) lower[b] = roundedDown(lower[b] - blockMoved[b]);
    }
}

void LloydAssigner::assign(const float* centres, size_t g, uint32_t* idx, float* sq) {
    const size_t d = m_d, n = m_n;
    if (n == 0 || g == 0) return;
    if (g != m_g) {
        m_g = g;
        m_blocks = (g + kLandmarkBlock - 1) / kLandmarkBlock;
        m_bounded = false;
        groupCentres(centres);
    }
    const size_t blocks = m_blocks;
    const bool keep = n * blocks <= kMaxBounds;
    if (m_bounded) loosenBounds(centres);

    std::vector<float> grouped(g * d);
    for (size_t c = 0; c < g; ++c)
        std::copy_n(centres + size_t(m_order[c]) * d, d, grouped.data() + c * d);
    m_tiles.build(grouped.data(), g, d);

    // Points in the order of their centres' blocks: the four points of a kernel call then
    // mostly need the same blocks.
    std::vector<uint32_t> order(n);
    if (m_bounded) {
        std::vector<size_t> start(blocks + 1, 0);
        for (size_t i = 0; i < n; ++i) ++start[m_blockOf[m_assigned[i]] + 1];
        for (size_t b = 0; b < blocks; ++b) start[b + 1] += start[b];
        for (size_t i = 0; i < n; ++i)
            order[start[m_blockOf[m_assigned[i]]]++] = static_cast<uint32_t>(i);
    } else {
        for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
    }
    if (keep) {
        m_assigned.resize(n);
        m_upper.resize(n);
        m_lower.resize(n * blocks);
    }

    // The distances' relative rounding error is at most (d + 2) 2^-24: the margins hold every
    // bound on the safe side of it, and a block is skipped only when each of its centres is
    // farther by more than that, so the float distances keep the full search's order.
    const double margin = 4.0 * double(d + 2) * 0x1p-24;
    const bool bounded = m_bounded;
    const long long groups = static_cast<long long>((n + kPointGroup - 1) / kPointGroup);
    size_t compared = 0;
#pragma omp parallel reduction(+ : compared) if (n >= 256)
    {
        std::vector<uint32_t> list(blocks);
        std::vector<float> blockMin(kPointGroup * blocks);
#pragma omp for schedule(static)
        for (long long grp = 0; grp < groups; ++grp) {
            const size_t first = static_cast<size_t>(grp) * kPointGroup;
            const size_t count = std::min(kPointGroup, n - first);
            uint32_t point[kPointGroup];
            const float* rows[kPointGroup];
            for (size_t p = 0; p < kPointGroup; ++p) {
                point[p] = order[first + std::min(p, count - 1)];
                rows[p] = m_points + size_t(point[p]) * d;
            }
            size_t listed = 0;
            for (size_t b = 0; b < blocks; ++b) {
                bool need = !bounded;
                for (size_t p = 0; p < count && !need; ++p) {
                    const size_t i = point[p];
                    need = m_blockOf[m_assigned[i]] == b ||
                           !(m_lower[i * blocks + b] > m_upper[i] * (1.0 + margin));
                }
                if (need) list[listed++] = static_cast<uint32_t>(b);
            }
            uint32_t at[kPointGroup];
            float best[kPointGroup];
            groupNearestInBlocks(rows, m_tiles, {list.data(), listed, m_columnOf.data()}, at, best,
                                 keep ? blockMin.data() : nullptr);
            for (size_t p = 0; p < count; ++p) {
                const size_t i = point[p];
                idx[i] = at[p];
                sq[i] = best[p];
                if (!keep) continue;
                m_assigned[i] = at[p];
                m_upper[i] = std::sqrt(double(best[p])) * (1.0 + margin);
                for (size_t l = 0; l < listed; ++l)
                    m_lower[i * blocks + list[l]] =
                        std::sqrt(double(blockMin[p * listed + l])) * (1.0 - margin);
            }
            compared += count * listed;
        }
    }
    m_skipped = 1.0 - double(compared) / (double(n) * double(blocks));
    if (keep) {
        m_previous.assign(centres, centres + g * d);
        m_bounded = true;
    }
}

}  // namespace sepal
