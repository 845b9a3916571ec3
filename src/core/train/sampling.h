#pragma once
// Seeded choice of point indices, shared by trainers, initialisation and metrics.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal {

/// Below this many landmarks, O(g^2) loops run on one thread: waking threads costs more than the
/// work (and much more on a busy machine).
inline constexpr size_t kParallelLandmarks = 192;

/// `count` distinct indices from [0, n) in random order (seeded); all of [0, n) shuffled when
/// count >= n, unless `allowRepeats`, which then fills up to `count` with repeated indices.
std::vector<size_t> samplePoints(size_t n, size_t count, uint64_t seed, bool allowRepeats = false);

/// Indices of the rows of `points` (n x d, row-major) whose d values are all finite, in order:
/// rows with NaN or infinity (a missing value) must not move or seed landmarks.
std::vector<size_t> finiteRows(const float* points, size_t n, size_t d);

/// A small, fast, portable generator (splitmix64): identical streams on every platform.
class SplitMix {
  public:
    /// Starts the stream at `seed`.
    explicit SplitMix(uint64_t seed) : m_state(seed) {}
    /// The next 64 random bits.
    uint64_t next() {
        uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    /// Uniform index in [0, n), n > 0.
    size_t below(size_t n) { return static_cast<size_t>((next() >> 11) % n); }
    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

  private:
    uint64_t m_state;
};

}  // namespace sepal
