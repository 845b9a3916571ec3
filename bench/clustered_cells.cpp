#include "clustered_cells.h"

#include <algorithm>
#include <cstdint>
#include <thread>

namespace sepal::bench {

namespace {
uint64_t xorshift(uint64_t& state) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
}
}  // namespace

std::vector<float> makeClusteredCells(size_t n, size_t d) {
    std::vector<float> centres(16 * d);
    uint64_t s = 12345;
    for (auto& c : centres) c = float(int(xorshift(s) % 2001) - 1000) / 200.0f;
    std::vector<float> x(n * d);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (size_t i = n * t / threads; i < n * (t + 1) / threads; ++i) {
                // A row's seed, mixed (splitmix64) so that neighbouring rows are unrelated.
                uint64_t state = 0x9e3779b97f4a7c15ull * (i + 1);
                state = (state ^ (state >> 30)) * 0xbf58476d1ce4e5b9ull;
                state = (state ^ (state >> 27)) * 0x94d049bb133111ebull;
                state = (state ^ (state >> 31)) | 1;
                const size_t c = xorshift(state) % 16;
                for (size_t j = 0; j < d; ++j) {
                    const uint64_t r = xorshift(state);
                    const float u = float((r & 0xffff) + ((r >> 16) & 0xffff) +
                                          ((r >> 32) & 0xffff) + ((r >> 48) & 0xffff)) /
                                        65536.0f -
                                    2.0f;
                    x[i * d + j] = centres[c * d + j] + 0.8f * u;
                }
            }
        });
    for (auto& t : pool) t.join();
    return x;
}

}  // namespace sepal::bench
