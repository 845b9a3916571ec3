#include <algorithm>
#include <vector>

#include "core/knn/nearest_search.h"

namespace sepal {

namespace {

// Keeps the k best (distance, index) pairs in ascending order by insertion: k is small.
class CpuNearestSearch final : public NearestSearch {
  public:
    void search(const float* points, size_t n, const float* landmarks, size_t g, size_t d, size_t k,
                uint32_t* idx, float* sqdist) override {
#pragma omp parallel for schedule(static)
        for (long long p = 0; p < static_cast<long long>(n); ++p) {
            const float* x = points + static_cast<size_t>(p) * d;
            uint32_t* bi = idx + static_cast<size_t>(p) * k;
            float* bd = sqdist + static_cast<size_t>(p) * k;
            size_t filled = 0;
            for (size_t j = 0; j < g; ++j) {
                const float* l = landmarks + j * d;
                float a = 0.0f;
                for (size_t t = 0; t < d; ++t) {
                    const float diff = x[t] - l[t];
                    a += diff * diff;
                }
                if (filled == k && !(a < bd[k - 1])) continue;
                size_t pos = filled < k ? filled++ : k - 1;
                while (pos > 0 && a < bd[pos - 1]) {
                    bd[pos] = bd[pos - 1];
                    bi[pos] = bi[pos - 1];
                    --pos;
                }
                bd[pos] = a;
                bi[pos] = static_cast<uint32_t>(j);
            }
        }
    }
};

}  // namespace

std::unique_ptr<NearestSearch> makeCpuNearestSearch() {
    return std::make_unique<CpuNearestSearch>();
}

}  // namespace sepal
