#include "core/embedsom/locality_rank.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>

namespace sepal {
namespace {

constexpr size_t kPart = 8;  // the halving stops at parts of this many

/// setPairTermsByRank's switch, first from SEPAL_PAIR_RANK.
std::atomic<bool>& byRankOn() {
    static std::atomic<bool> on{[] {
        const char* set = std::getenv("SEPAL_PAIR_RANK");
        return !(set && std::strcmp(set, "0") == 0);
    }()};
    return on;
}

/// A coordinate as the halving compares it: NaN last.
float keyOf(float v) {
    return std::isnan(v) ? std::numeric_limits<float>::infinity() : v;
}

}  // namespace

bool pairTermsByRankOn() {
    return byRankOn().load();
}

void setPairTermsByRank(bool on) {
    byRankOn().store(on);
}

std::vector<uint16_t> localityRanks(const float* landmarks, size_t g, size_t d) {
    std::vector<uint32_t> order(g);
    std::iota(order.begin(), order.end(), 0u);
    const auto at = [&](uint32_t j, size_t t) { return keyOf(landmarks[size_t(j) * d + t]); };
    const auto halve = [&](auto&& self, size_t begin, size_t end) -> void {
        if (end - begin <= kPart || d == 0) return;
        size_t widest = 0;
        float spread = -1.0f;
        for (size_t t = 0; t < d; ++t) {
            float lo = std::numeric_limits<float>::infinity(), hi = -lo;
            for (size_t i = begin; i < end; ++i) {
                const float v = at(order[i], t);
                if (std::isinf(v)) continue;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            if (hi - lo > spread) spread = hi - lo, widest = t;
        }
        const size_t middle = begin + (end - begin) / 2;
        std::nth_element(order.begin() + long(begin), order.begin() + long(middle),
                         order.begin() + long(end), [&](uint32_t a, uint32_t b) {
                             const float ka = at(a, widest), kb = at(b, widest);
                             return ka < kb || (ka == kb && a < b);
                         });
        self(self, begin, middle);
        self(self, middle, end);
    };
    halve(halve, 0, g);
    std::vector<uint16_t> rank(g);
    for (size_t r = 0; r < g; ++r) rank[order[r]] = static_cast<uint16_t>(r);
    return rank;
}

}  // namespace sepal
