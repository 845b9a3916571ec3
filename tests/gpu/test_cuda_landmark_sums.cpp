// The training step's two sums passes (landmark_sums.cu: one addition a point; sorted_sums.cu:
// each block's points grouped by landmark first) against host sums, on an assignment made here:
// enough points for several batches per block (and, through one block, several spans), most of them
// on few landmarks (long runs that cross the warps' shares), landmarks without points, and points
// the sums must skip (a non-finite coordinate with a landmark, an index beyond g, one already
// skipped); a distance that is not finite is left out of the inertia. Points that the training
// step's bounds kept (a negative distance) have their distances measured by the passes.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda/device_buffer.h"
#include "cuda/landmark_sums.h"
#include "cuda/training_step.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

/// What a sums pass gave, copied back.
struct SumsResult {
    std::vector<double> sums;
    std::vector<unsigned long long> counts;
    std::vector<uint32_t> assign;
    double inertia = 0;
    unsigned long long skipped = 0;
};

/// Runs one sums pass (sorted, with at most `blocks` blocks, or not) over rows x (n x stride)
/// with the assignment and distances (and the landmarks, g x stride, when given).
SumsResult runSums(bool sorted, int blocks, const std::vector<float>& x, size_t n, int d,
                   int stride, int g, const std::vector<uint32_t>& assign,
                   const std::vector<float>& dist, const std::vector<float>& landmarks = {}) {
    cuda::DeviceBuffer<float> points, distances, landmarkRows;
    cuda::DeviceBuffer<uint32_t> assignment;
    cuda::DeviceBuffer<double> sums, inertia;
    cuda::DeviceBuffer<unsigned long long> counts, skipped;
    cuda::uploadVector(points, x);
    cuda::uploadVector(distances, dist);
    cuda::uploadVector(assignment, assign);
    // The outputs start at zero.
    cuda::uploadVector(sums, std::vector<double>(size_t(g) * d, 0.0));
    cuda::uploadVector(counts, std::vector<unsigned long long>(g, 0));
    cuda::uploadVector(inertia, std::vector<double>(1, 0.0));
    cuda::uploadVector(skipped, std::vector<unsigned long long>(1, 0));
    cuda::LandmarkSumArgs a;
    a.points = points.get();
    a.n = n;
    a.d = d;
    a.stride = stride;
    a.g = g;
    a.assign = assignment.get();
    a.dist = distances.get();
    a.sums = sums.get();
    a.counts = counts.get();
    a.inertia = inertia.get();
    a.skipped = skipped.get();
    if (!landmarks.empty()) {
        cuda::uploadVector(landmarkRows, landmarks);
        a.landmarks = landmarkRows.get();
    }
    if (sorted)
        cuda::launchSortedLandmarkSums(a, nullptr, blocks);
    else
        cuda::launchLandmarkSums(a, nullptr);
    SEPAL_CUDA_CHECK(cudaDeviceSynchronize());
    const auto download = [](auto& to, const auto& from, size_t count) {
        to.resize(count);
        SEPAL_CUDA_CHECK(
            cudaMemcpy(to.data(), from.get(), count * sizeof(to[0]), cudaMemcpyDeviceToHost));
    };
    SumsResult r;
    std::vector<double> inertiaHost;
    std::vector<unsigned long long> skippedHost;
    download(r.sums, sums, size_t(g) * d);
    download(r.counts, counts, size_t(g));
    download(r.assign, assignment, n);
    download(inertiaHost, inertia, 1);
    download(skippedHost, skipped, 1);
    r.inertia = inertiaHost[0];
    r.skipped = skippedHost[0];
    return r;
}

/// A shape of the sums: points, dimensions, row stride, landmarks, and the sorted pass's most
/// blocks (0: as many as the device holds).
struct SumsCase {
    size_t n;
    int d, stride, g, blocks;
};

class CudaLandmarkSums : public ::testing::TestWithParam<SumsCase> {};

TEST_P(CudaLandmarkSums, BothPassesGiveTheHostsSums) {
    SEPAL_REQUIRE_GPU();
    const SumsCase c = GetParam();
    const size_t n = c.n;
    const int d = c.d, stride = c.stride, g = c.g;
    std::mt19937 rng(907);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(n * stride, 0.0f);
    std::vector<uint32_t> assign(n);
    std::vector<float> dist(n);
    // Most points on landmark 1 and the next few (long runs), a tenth spread over all but the
    // last (which stays empty), the rest on landmark 0.
    for (size_t i = 0; i < n; ++i) {
        const uint32_t r = rng() % 100;
        assign[i] = r < 60 ? 1u + (rng() % 3) : r < 70 ? rng() % uint32_t(g - 1) : 0u;
        dist[i] = std::abs(normal(rng));
        for (int t = 0; t < d; ++t) x[i * stride + t] = 3.0f * float(assign[i] % 7) + normal(rng);
    }
    x[5 * stride + 2] = std::numeric_limits<float>::quiet_NaN();  // landmark kept: skipped here
    x[(n - 1) * stride + d - 1] = std::numeric_limits<float>::infinity();
    dist[9] = std::numeric_limits<float>::infinity();  // added, but not to the inertia
    assign[77] = uint32_t(g) + 5;                      // beyond the landmarks
    assign[n / 2] = cuda::kSkippedPoint;               // skipped by the search
    std::vector<double> sums(size_t(g) * d, 0.0), magnitude(size_t(g) * d, 0.0);
    std::vector<unsigned long long> counts(g, 0);
    double inertia = 0;
    unsigned long long skipped = 0;
    std::vector<uint32_t> expectedAssign = assign;
    for (size_t i = 0; i < n; ++i) {
        bool finite = true;
        for (int t = 0; t < d; ++t) finite = finite && std::isfinite(x[i * stride + t]);
        if (assign[i] >= uint32_t(g) || !finite) {
            expectedAssign[i] = cuda::kSkippedPoint;
            ++skipped;
            continue;
        }
        ++counts[assign[i]];
        if (std::isfinite(dist[i])) inertia += dist[i];
        for (int t = 0; t < d; ++t) {
            sums[assign[i] * d + t] += x[i * stride + t];
            magnitude[assign[i] * d + t] += std::abs(x[i * stride + t]);
        }
    }
    ASSERT_EQ(skipped, 4u);
    ASSERT_EQ(counts[g - 1], 0u);
    // The sorted pass needs about 200 KB of shared memory at g 1024 (an H100 or H200 has it);
    // where the device has less, only the other pass is checked.
    const bool sortedFits = cuda::sortedSumsFit(g, stride);
    if (!sortedFits)
        std::printf("skipped: the sorted sums of g = %d in rows of %d do not fit this GPU\n", g,
                    stride);
    for (bool sorted : {true, false}) {
        if (sorted && !sortedFits) continue;
        SCOPED_TRACE(std::string(sorted ? "sorted" : "one addition a point") + ", n " +
                     std::to_string(n) + ", d " + std::to_string(d) + ", g " + std::to_string(g));
        const SumsResult r = runSums(sorted, c.blocks, x, n, d, stride, g, assign, dist);
        EXPECT_EQ(r.counts, counts);
        EXPECT_EQ(r.skipped, skipped);
        EXPECT_EQ(r.assign, expectedAssign);
        EXPECT_NEAR(r.inertia, inertia, 1e-9 * inertia);
        size_t worst = 0;
        double worstRatio = 0;
        for (size_t e = 0; e < sums.size(); ++e) {
            const double ratio = std::abs(r.sums[e] - sums[e]) / (magnitude[e] + 1e-30);
            if (ratio > worstRatio) worstRatio = ratio, worst = e;
        }
        // Float partial sums over at most 2^18 points, added in double.
        EXPECT_LT(worstRatio, 1e-5) << "landmark " << worst / d << ", dimension " << worst % d
                                    << ": " << r.sums[worst] << " against " << sums[worst];
    }
}

// 3M points: two batches of 2^14 in each block's span on a GPU of up to 132 multiprocessors; d 27
// in rows of 32; d 64; g 1024 at d 32 (the training headline's shape); 280,000 points through
// one block, two spans of about nine batches each (the flushes and the clearing between them),
// small enough for the sanitizers (scripts/gpu-check.sh).
INSTANTIATE_TEST_SUITE_P(Shapes, CudaLandmarkSums,
                         ::testing::Values(SumsCase{3000000, 32, 32, 8, 0},
                                           SumsCase{700000, 27, 32, 300, 0},
                                           SumsCase{400000, 64, 64, 256, 0},
                                           SumsCase{1500000, 32, 32, 1024, 0},
                                           SumsCase{280000, 27, 32, 300, 1}),
                         [](const ::testing::TestParamInfo<SumsCase>& info) {
                             const SumsCase& c = info.param;
                             return "n" + std::to_string(c.n) + "_d" + std::to_string(c.d) + "_g" +
                                    std::to_string(c.g) +
                                    (c.blocks ? "_blocks" + std::to_string(c.blocks) : "");
                         });

/// Points whose landmark the training step's bounds kept have a negative distance: both passes
/// measure it from the row and the landmark; the others' distances are taken as given.
struct KeptCase {
    size_t n;
    int d, stride, g;
};

class CudaKeptDistances : public ::testing::TestWithParam<KeptCase> {};

TEST_P(CudaKeptDistances, BothPassesMeasureTheKeptPoints) {
    SEPAL_REQUIRE_GPU();
    const KeptCase c = GetParam();
    const size_t n = c.n;
    const int d = c.d, stride = c.stride, g = c.g;
    std::mt19937 rng(911);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(n * stride, 0.0f), l(size_t(g) * stride, 0.0f);
    for (int j = 0; j < g; ++j)
        for (int t = 0; t < d; ++t) l[size_t(j) * stride + t] = 4.0f * normal(rng);
    std::vector<uint32_t> assign(n);
    std::vector<float> dist(n);
    for (size_t i = 0; i < n; ++i) {
        assign[i] = uint32_t(rng() % uint32_t(g));
        for (int t = 0; t < d; ++t)
            x[i * stride + t] = l[size_t(assign[i]) * stride + t] + normal(rng);
        // Two thirds kept; the rest measured by the search (any value will do here).
        dist[i] = rng() % 3 != 0 ? -1.0f : std::abs(normal(rng));
    }
    dist[7] = -1.0f;
    x[7 * stride + 1] = std::numeric_limits<float>::quiet_NaN();  // kept, not finite: skipped
    double inertia = 0;
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i == 7) continue;
        if (dist[i] >= 0.0f) {
            inertia += dist[i];
            continue;
        }
        ++kept;
        for (int t = 0; t < d; ++t) {
            const double e = double(x[i * stride + t]) - double(l[size_t(assign[i]) * stride + t]);
            inertia += e * e;
        }
    }
    ASSERT_GT(kept, n / 2);
    const bool sortedFits = cuda::sortedSumsFit(g, stride);
    for (bool sorted : {true, false}) {
        if (sorted && !sortedFits) continue;
        SCOPED_TRACE(std::string(sorted ? "sorted" : "one addition a point") + ", d " +
                     std::to_string(d) + ", g " + std::to_string(g));
        const SumsResult r = runSums(sorted, 0, x, n, d, stride, g, assign, dist, l);
        EXPECT_EQ(r.skipped, 1u);
        EXPECT_EQ(r.assign[7], cuda::kSkippedPoint);
        // Float distances (each within d 2^-24 of its value), added in double.
        EXPECT_NEAR(r.inertia, inertia, 1e-6 * inertia);
        // Without the landmarks the kept points add nothing: the inertia drops by theirs.
        const SumsResult plain = runSums(sorted, 0, x, n, d, stride, g, assign, dist);
        EXPECT_LT(plain.inertia, 0.5 * inertia);
    }
}

// Strides 8 and 16 (landmark_sums.cu's narrow rows, 4 and 2 points a warp), 32 (both passes),
// 64, and the sorted pass through several batches.
INSTANTIATE_TEST_SUITE_P(Shapes, CudaKeptDistances,
                         ::testing::Values(KeptCase{50000, 7, 8, 20}, KeptCase{50000, 13, 16, 64},
                                           KeptCase{100000, 27, 32, 300},
                                           KeptCase{60000, 64, 64, 256}),
                         [](const ::testing::TestParamInfo<KeptCase>& info) {
                             const KeptCase& c = info.param;
                             return "d" + std::to_string(c.d) + "_g" + std::to_string(c.g);
                         });

}  // namespace
}  // namespace sepal::test
