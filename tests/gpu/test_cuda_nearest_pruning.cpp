// The pruned nearest pass (cuda/nearest_pruning.h): from a training step's second step on, the
// cells listed by their last landmark and each 128 of them searched among the groups of 32
// landmarks that could win one. Every step is checked against the host's exact search (the same
// winners, ties to the lower index of the landmarks' own order, the sums); the pass must also
// skip most groups on clustered cells, and give the same winners from any last landmark.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda/cuda_error.h"
#include "cuda/device_buffer.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/nearest_landmark.h"
#include "cuda/nearest_pruning.h"
#include "cuda/training_step.h"
#include "gpu_test_support.h"
#include "training_step_checks.h"

namespace sepal::test {
namespace {

struct PruningCase {
    size_t n, d, g;
    const char* kind;
};

class CudaNearestPruning : public ::testing::TestWithParam<PruningCase> {};

/// The cells and landmarks of a case: clustered cells with landmarks on their rows; "ties" adds
/// 40 copies of landmark 5 (more than a group holds, so that they span groups) and cells on it,
/// and cells halfway between two landmarks in one coordinate; "lattice" puts cells and landmarks
/// on small integers (exact float distances: many ties between different landmarks);
/// "nonfinite" adds NaN and infinite cells, one whose squared distances overflow and one beyond
/// FP16's reach.
void makeCase(const PruningCase& c, std::vector<float>& x, std::vector<float>& l) {
    const std::string kind = c.kind;
    const size_t n = c.n, d = c.d, g = c.g;
    x = randomPoints(n, d, 311, 24);
    l = landmarksOnRows(x, n, d, g, 312);
    if (kind == "ties") {
        for (size_t j = 6; j < 46 && j < g; ++j)
            std::copy_n(l.begin() + long(5 * d), d, l.begin() + long(j * d));
        for (size_t i = 0; i < n / 10; ++i)
            std::copy_n(l.begin() + long(5 * d), d, x.begin() + long(i * d));
        // Halfway between landmarks 50 and 51 where they differ in the first coordinate only.
        if (g > 51) {
            std::copy_n(l.begin() + long(50 * d), d, l.begin() + long(51 * d));
            l[51 * d] = l[50 * d] + 0.5f;
            for (size_t i = n / 10; i < n / 5; ++i) {
                std::copy_n(l.begin() + long(50 * d), d, x.begin() + long(i * d));
                x[i * d] = l[50 * d] + 0.25f;
            }
        }
    } else if (kind == "lattice") {
        std::mt19937 rng(313);
        for (float& v : x) v = float(rng() % 4);
        for (float& v : l) v = float(rng() % 4);
    } else if (kind == "nonfinite") {
        x[1 * d + 2] = std::numeric_limits<float>::quiet_NaN();
        x[4 * d] = std::numeric_limits<float>::infinity();
        x[(n - 1) * d + 1] = -std::numeric_limits<float>::infinity();
        x[11 * d + 3] = 1e30f;  // every squared distance overflows: skipped
        x[12 * d + 4] = 1e6f;   // beyond FP16's reach: scanned exactly
    }
}

TEST_P(CudaNearestPruning, KmeansStepsKeepTheHostsWinners) {
    SEPAL_REQUIRE_GPU();
    const PruningCase c = GetParam();
    SCOPED_TRACE(c.kind);
    std::vector<float> x, l;
    makeCase(c, x, l);
    const ScopedEnv bounds("SEPAL_TRAIN_BOUNDS", "0");  // the bounds would take the later steps
    const ScopedEnv prune("SEPAL_TRAIN_PRUNE", "1");
    cuda::TrainingStep gpu(x.data(), c.n, c.d, "nearest");
    const bool applies = cuda::NearestPruning::applies(c.g, cuda::paddedDim(c.d));
    double least = 1.0;
    for (int it = 0; it < 4; ++it) {
        SCOPED_TRACE("step " + std::to_string(it));
        cuda::StepResult r;
        expectKmeansStep(gpu, x, c.n, c.d, l, c.g, &r);
        const double share = gpu.lastPrunedShare();
        std::printf("%s n %zu d %zu g %zu step %d: share %.3f, %zu cells scanned exactly\n", c.kind,
                    c.n, c.d, c.g, it, share, gpu.lastExactScans());
        if (it == 0 || !applies) EXPECT_EQ(share, 1.0) << "no last landmark, or no pruning here";
        // Each cell's own last landmark's group is always computed: never an empty tile.
        if (it > 0 && applies) EXPECT_GT(share, 0.0);
        least = std::min(least, share);
        l = r.landmarks;
    }
    // The products' share: a quarter at g 1024 on 24 clusters (a third of the groups at g 256;
    // the lattice's cells spread evenly, and nonfinite's far cell spreads the landmarks).
    const std::string kind = c.kind;
    if (applies && (kind == "clusters" || kind == "ties"))
        EXPECT_LT(least, c.g >= 1000 ? 0.4 : 0.8) << "clustered cells should leave groups out";
    if (std::string(c.kind) == "nonfinite") {
        const auto a = gpu.assignment();
        for (size_t i : {size_t(1), size_t(4), c.n - 1, size_t(11)})
            EXPECT_EQ(a[i], cuda::kSkippedPoint) << "cell " << i;
        EXPECT_NE(a[12], cuda::kSkippedPoint);
    }
}

// g 1024 and 256 at d 32 (one part), g 1000 (a short last group and a padding step), d 27 at
// g 300 (CyTOF-like), d 16 at g 100 (four groups), d 64 at g 1024 (two parts: not pruned).
INSTANTIATE_TEST_SUITE_P(
    Cases, CudaNearestPruning,
    ::testing::Values(
        PruningCase{8000, 32, 1024, "clusters"}, PruningCase{6000, 32, 256, "clusters"},
        PruningCase{6000, 32, 1000, "clusters"}, PruningCase{5000, 27, 300, "clusters"},
        PruningCase{4000, 16, 100, "clusters"}, PruningCase{4000, 64, 1024, "clusters"},
        PruningCase{6000, 32, 256, "ties"}, PruningCase{6000, 27, 1000, "ties"},
        PruningCase{4000, 16, 256, "lattice"}, PruningCase{4000, 8, 300, "lattice"},
        PruningCase{4000, 32, 256, "nonfinite"}, PruningCase{4000, 64, 512, "nonfinite"}),
    [](const ::testing::TestParamInfo<PruningCase>& info) {
        const PruningCase& c = info.param;
        return std::string(c.kind) + "_d" + std::to_string(c.d) + "_g" + std::to_string(c.g);
    });

// The defaults (the bounds and the pruned pass each taking the steps they pay for, the rows
// reordered, the bounds made again after it) over a converging Lloyd run: every step's winners,
// sums and inertia are the host's, whichever search the step took.
TEST(CudaNearestPruningDefaults, AConvergingRunKeepsTheHostsWinners) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 20000, d = 32, g = 1024;
    const auto x = randomPoints(n, d, 391, 24);
    auto l = landmarksOnRows(x, n, d, g, 392);
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    size_t pruned = 0, kept = 0;
    for (int it = 0; it < 14; ++it) {
        SCOPED_TRACE("step " + std::to_string(it));
        cuda::StepResult r;
        expectKmeansStep(gpu, x, n, d, l, g, &r);
        pruned += gpu.lastPrunedShare() < 1.0;
        kept += gpu.lastKeptCells() > 0;
        std::printf("step %d: share %.3f, %zu kept\n", it, gpu.lastPrunedShare(),
                    gpu.lastKeptCells());
        l = r.landmarks;
    }
    std::printf("%zu pruned steps, %zu steps with kept cells\n", pruned, kept);
}

// The batch SOM's square neighbourhood makes blocks of the map equal while its radius spans
// them: equal landmarks in different groups, the lowest index of each the winner.
TEST(CudaNearestPruningSom, TheSquareNeighbourhoodsEqualLandmarksKeepTheHostsWinners) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 30000, d = 32, side = 32, g = side * side;
    const auto x = randomPoints(n, d, 351, 16);
    auto l = landmarksOnRows(x, n, d, g, 352);
    const ScopedEnv bounds("SEPAL_TRAIN_BOUNDS", "0");
    const ScopedEnv prune("SEPAL_TRAIN_PRUNE", "1");
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    const int epochs = 8;
    double least = 1.0;
    for (int epoch = 0; epoch < epochs; ++epoch) {
        SCOPED_TRACE("epoch " + std::to_string(epoch));
        const float radius = 1.5f * float(epochs - 1 - epoch) / float(epochs - 1);
        gpu.setNeighbourhood(squareNeighbourhood(side, radius).data(), g);
        const cuda::StepResult r = gpu.stepBatchSom(l.data(), g);
        std::vector<uint32_t> idx;
        std::vector<float> dist;
        hostNearest(x, n, l, g, d, idx, dist);
        EXPECT_EQ(gpu.assignment(), idx);
        std::printf("epoch %d: radius %.3f, share %.3f, %zu cells scanned exactly\n", epoch,
                    double(radius), gpu.lastPrunedShare(), gpu.lastExactScans());
        if (epoch > 0) least = std::min(least, gpu.lastPrunedShare());
        l = r.landmarks;
    }
    EXPECT_LT(least, 0.6) << "a trained map on clusters should leave most groups out";
}

/// What one pruned pass straight from NearestPruning gave: each listed cell's winner, its
/// squared distance (as NearestArgs::dist has it: -1 for a lone candidate's) and the cell it
/// is; each tile's steps; each slot's landmark; the share of the steps computed.
struct PassResult {
    std::vector<uint32_t> winner, cellOf, tileSteps, slotLandmark;
    std::vector<float> dist;
    double share = 1.0;
};

/// The cells `x` (n x d) put in the order listBySlot gives from their last landmarks `assign`
/// (gathered on the device), each tile's steps marked, the pass and the scan run.
PassResult runPrunedPass(const std::vector<float>& x, size_t n, size_t d,
                         const std::vector<float>& l, size_t g,
                         const std::vector<uint32_t>& assign) {
    const int stride = cuda::paddedDim(d);
    std::vector<float> xPadded(n * size_t(stride), 0.0f), lPadded(g * size_t(stride), 0.0f);
    for (size_t i = 0; i < n; ++i) std::copy_n(x.data() + i * d, d, xPadded.data() + i * stride);
    for (size_t j = 0; j < g; ++j) std::copy_n(l.data() + j * d, d, lPadded.data() + j * stride);
    cuda::DeviceBuffer<float> given, points, landmarks, distances;
    cuda::DeviceBuffer<uint32_t> givenAssign, assignDev, list, origin;
    cuda::DeviceBuffer<unsigned long long> scans;
    given.reserve(xPadded.size());
    points.reserve(xPadded.size());
    landmarks.reserve(lPadded.size());
    distances.reserve(n);
    givenAssign.reserve(n);
    assignDev.reserve(n);
    list.reserve(n);
    origin.reserve(n);
    scans.reserve(1);
    SEPAL_CUDA_CHECK(
        cudaMemcpy(given.get(), xPadded.data(), xPadded.size() * 4, cudaMemcpyHostToDevice));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(landmarks.get(), lPadded.data(), lPadded.size() * 4, cudaMemcpyHostToDevice));
    SEPAL_CUDA_CHECK(cudaMemcpy(givenAssign.get(), assign.data(), n * 4, cudaMemcpyHostToDevice));
    SEPAL_CUDA_CHECK(cudaMemset(scans.get(), 0, sizeof(unsigned long long)));
    cuda::NearestArgs a;
    a.n = n;
    a.d = int(d);
    a.stride = stride;
    a.landmarks = landmarks.get();
    a.g = int(g);
    a.dist = distances.get();
    a.scans = scans.get();
    cuda::NearestPruning pruning;
    PassResult r;
    // Each call's own result: an earlier failure of the test must not end this pass.
    const bool listed = pruning.prepareLandmarks(a, l.data(), nullptr) &&
                        pruning.listBySlot(givenAssign.get(), n, list.get(), nullptr);
    EXPECT_TRUE(listed) << "the pass should apply and its buffers fit";
    if (!listed) return r;
    cuda::launchGatherRows(given.get(), list.get(), n, stride, points.get(), nullptr);
    cuda::launchGatherListed(givenAssign.get(), list.get(), n, assignDev.get(), nullptr);
    cuda::launchGatherListed(nullptr, list.get(), n, origin.get(), nullptr);
    a.points = points.get();
    a.assign = assignDev.get();
    const bool marked = pruning.markTiles(a, nullptr);
    EXPECT_TRUE(marked) << "the tiles' buffer should fit";
    if (!marked) return r;
    const size_t tiles = (n + 127) / 128;
    r.tileSteps.resize(tiles);
    r.slotLandmark.resize(g);
    SEPAL_CUDA_CHECK(
        cudaMemcpy(r.tileSteps.data(), a.tileSteps, tiles * 4, cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(r.slotLandmark.data(), a.slotLandmark, g * 4, cudaMemcpyDeviceToHost));
    cuda::launchNearestLandmark(a, nullptr);
    cuda::launchNearestScan(a, nullptr);
    r.winner.resize(n);
    r.cellOf.resize(n);
    r.dist.resize(n);
    SEPAL_CUDA_CHECK(cudaMemcpy(r.winner.data(), assignDev.get(), n * 4, cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(cudaMemcpy(r.dist.data(), distances.get(), n * 4, cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(cudaMemcpy(r.cellOf.data(), origin.get(), n * 4, cudaMemcpyDeviceToHost));
    r.share = pruning.lastShare();
    return r;
}

/// Every cell listed once, each with the host's winner and squared distance.
void expectHostsWinners(const PassResult& r, size_t n, const std::vector<uint32_t>& idx,
                        const std::vector<float>& dist) {
    ASSERT_EQ(r.cellOf.size(), n) << "the pass ran";
    std::vector<uint32_t> sorted(r.cellOf);
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i) << "every cell listed once";
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
        const size_t cell = r.cellOf[i];
        wrong += r.winner[i] != idx[cell];
        if (r.dist[i] >= 0.0f) EXPECT_EQ(r.dist[i], dist[cell]) << "cell " << cell;
    }
    EXPECT_EQ(wrong, 0u);
}

// The pass with last landmarks that are any value (random ones, some past g, the winners). A
// bound from any landmark is a bound, so the winners are the host's whatever the order and the
// tiles' steps.
TEST(CudaNearestPruningPass, AnyLastLandmarkGivesTheHostsWinners) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 5000, d = 32, g = 512;
    const auto x = randomPoints(n, d, 371, 12);
    const auto l = landmarksOnRows(x, n, d, g, 372);
    ASSERT_TRUE(cuda::NearestPruning::applies(g, cuda::paddedDim(d)));
    std::vector<uint32_t> idx;
    std::vector<float> dist;
    hostNearest(x, n, l, g, d, idx, dist);
    std::mt19937 rng(373);
    for (const std::string last : {"random", "beyond g", "the winners"}) {
        SCOPED_TRACE(last);
        std::vector<uint32_t> assign(n);
        for (size_t i = 0; i < n; ++i)
            assign[i] = last == "random"     ? uint32_t(rng() % g)
                        : last == "beyond g" ? uint32_t(g + rng() % 5)
                                             : idx[i];
        const PassResult r = runPrunedPass(x, n, d, l, g, assign);
        expectHostsWinners(r, n, idx, dist);
        std::printf("last landmarks %s: share %.3f\n", last.c_str(), r.share);
        if (last == "beyond g") EXPECT_EQ(r.share, 1.0) << "no bound: every group";
        if (last == "the winners") EXPECT_LT(r.share, 0.6);
    }
}

// The skip test itself, cell by cell: every landmark no farther (in double) from a cell than the
// cell's last landmark must lie in a step its tile computes, ties included. The last landmark is
// each cell's second nearest (a bound just above the winner's distance: the tightest calls);
// landmarks 860 to 899 are landmark 5 again (more than a group holds) and 20 cells lie on it
// (ties at distance 0 across groups); the cells and landmarks lie near the origin or 1000 away
// in every coordinate (the inputs' rounding grows 1000-fold, the distances do not: the margins
// must hold, and the pass prune as much).
TEST(CudaNearestPruningPass, EveryLandmarkAsNearAsTheLastIsInAComputedStep) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 6000, g = 1024;
    for (const size_t d : {size_t(32), size_t(7)}) {
        ASSERT_TRUE(cuda::NearestPruning::applies(g, cuda::paddedDim(d)));
        std::vector<double> shares;
        for (const float offset : {0.0f, 1000.0f}) {
            SCOPED_TRACE("d " + std::to_string(d) + ", offset " + std::to_string(offset));
            auto x = randomPoints(n, d, 381, 24, offset);
            auto l = landmarksOnRows(x, n, d, g, 382);
            for (size_t j = 860; j < 900; ++j)
                std::copy_n(l.begin() + long(5 * d), d, l.begin() + long(j * d));
            for (size_t i = 0; i < 20; ++i)
                std::copy_n(l.begin() + long(5 * d), d, x.begin() + long(i * d));
            std::vector<uint32_t> second(n);
            std::vector<double> bound(n);
            const auto between = [&](size_t i, size_t j) {
                double s = 0.0;
                for (size_t t = 0; t < d; ++t) {
                    const double e = double(x[i * d + t]) - double(l[j * d + t]);
                    s += e * e;
                }
                return std::sqrt(s);
            };
            for (size_t i = 0; i < n; ++i) {
                double best = INFINITY, next = INFINITY;
                size_t first = 0;
                for (size_t j = 0; j < g; ++j) {
                    const double e = between(i, j);
                    if (e < best) {
                        next = best, second[i] = uint32_t(first);
                        best = e, first = j;
                    } else if (e < next) {
                        next = e, second[i] = uint32_t(j);
                    }
                }
                bound[i] = between(i, second[i]);
            }
            const PassResult r = runPrunedPass(x, n, d, l, g, second);
            ASSERT_FALSE(r.tileSteps.empty());
            std::vector<uint32_t> slotOf(g);
            for (size_t s = 0; s < g; ++s) slotOf[r.slotLandmark[s]] = uint32_t(s);
            size_t missed = 0;
            for (size_t i = 0; i < n; ++i) {
                const size_t cell = r.cellOf[i];
                const uint32_t steps = r.tileSteps[i / 128];
                for (size_t j = 0; j < g; ++j)
                    if (between(cell, j) <= bound[cell])
                        missed += !((steps >> (slotOf[j] / cuda::kPruningGroup)) & 1u);
            }
            EXPECT_EQ(missed, 0u) << "landmarks skipped that could win or tie";
            std::vector<uint32_t> idx;
            std::vector<float> dist;
            hostNearest(x, n, l, g, d, idx, dist);
            expectHostsWinners(r, n, idx, dist);
            std::printf("d %zu, offset %.0f: share %.3f\n", d, double(offset), r.share);
            shares.push_back(r.share);
        }
        // Clustered cells leave most groups out, and as many far from the origin as near it.
        EXPECT_LT(shares[0], 0.6);
        EXPECT_LE(shares[1], shares[0] * 1.05 + 0.01) << "the far cells should prune as well";
    }
}

}  // namespace
}  // namespace sepal::test
