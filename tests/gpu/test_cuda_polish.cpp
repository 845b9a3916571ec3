// The UMAP-like polish on the GPU (cuda_polish_device.cpp) against the CPU's code: the same
// neighbour lists and the same epochs bit for bit, so the polished picture is the same on both
// backends (with AVX2 on the host: the CPU's other path rounds its powers differently).

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "core/embedsom/embedsom.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_model.h"
#include "core/pipeline/polish.h"
#include "core/pipeline/polish_device.h"
#include "core/pipeline/polish_epoch.h"
#include "core/pipeline/polish_neighbours.h"
#include "cuda/cuda_backend.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

bool hostVectorPath() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/// Clustered cells (n x d) with a few missing values and repeated rows; g landmarks on cells.
struct PolishCase {
    Matrix points;
    LandmarkModel model;
};

PolishCase polishCase(size_t n, size_t d, size_t g) {
    PolishCase c;
    c.points = Matrix(n, d);
    c.points.values = randomPoints(n, d, 17, 12);
    for (size_t i = 5; i < n; i += 997) c.points.at(i, i % d) = std::nanf("");
    for (size_t i = 100; i < n; i += 1009)  // repeated rows: ties broken by index
        std::copy_n(c.points.row(i - 50), d, c.points.row(i));
    c.model.resize(g, d);
    for (size_t j = 0; j < g; ++j)
        std::copy_n(c.points.row((j * 7919 + 3) % n), d, c.model.high.data() + j * d);
    for (size_t j = 0; j < g; ++j)
        c.model.low[2 * j] = float(j % 8), c.model.low[2 * j + 1] = float(j / 8);
    c.model.touch();
    return c;
}

std::vector<uint8_t> finiteRows(const Matrix& m) {
    std::vector<uint8_t> usable(m.rows, 1);
    for (size_t i = 0; i < m.rows; ++i)
        for (size_t t = 0; t < m.cols; ++t) usable[i] = usable[i] && std::isfinite(m.at(i, t));
    return usable;
}

TEST(CudaPolish, NeighboursAreTheCpusListsBitForBit) {
    SEPAL_REQUIRE_GPU();
    auto device = cuda::makeCudaPolishDevice();
    // d 27 and 32 take the tiled search, 70 the warp per query; 3 probes merge three lists.
    for (auto [d, probes] : {std::pair<size_t, size_t>{27, 2}, {32, 3}, {70, 2}}) {
        const size_t n = 20000, g = 70;
        const PolishCase c = polishCase(n, d, g);
        std::vector<uint32_t> probe(n * probes);
        std::vector<float> probeDist(n * probes);
        makeCpuNearestSearch()->search(c.points.data(), n, c.model.high.data(), g, d, probes,
                                       probe.data(), probeDist.data());
        const CellLists lists = listCellsByLandmark(finiteRows(c.points), probe, probes, g);
        for (size_t k : {1, 15, 32}) {
            std::vector<uint32_t> cpuNbr, gpuNbr;
            std::vector<float> cpuSq, gpuSq;
            ASSERT_TRUE(candidateNeighbours(c.points, lists, probe, probes, k, cpuNbr, cpuSq));
            device->neighbours(c.points, lists, probe, probes, k, gpuNbr, gpuSq);
            EXPECT_EQ(gpuNbr, cpuNbr) << "d " << d << " k " << k;
            EXPECT_EQ(gpuSq, cpuSq) << "d " << d << " k " << k;
        }
    }
}

TEST(CudaPolish, GraphAndEpochsAreTheCpusBitForBit) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 30011, d = 32, g = 90, probes = 2, k = 15;
    const PolishCase c = polishCase(n, d, g);
    std::vector<uint32_t> probe(n * probes), nbr;
    std::vector<float> probeDist(n * probes), sq;
    makeCpuNearestSearch()->search(c.points.data(), n, c.model.high.data(), g, d, probes,
                                   probe.data(), probeDist.data());
    std::vector<uint8_t> usable = finiteRows(c.points);
    const CellLists lists = listCellsByLandmark(usable, probe, probes, g);
    std::vector<uint32_t> keep;
    for (size_t i = 0; i < n; ++i)
        if (usable[i]) keep.push_back(uint32_t(i));
    const size_t stride = polishStride(n);
    std::vector<float> start = randomPoints(stride, 2, 5);
    for (auto& v : start) v *= 20.0f;
    start[2 * 7] = start[2 * 8], start[2 * 7 + 1] = start[2 * 8 + 1];  // a zero distance
    PolishStep step;
    step.a = 1.577f, step.b = 0.895f;
    step.repulsion = 0.05f;
    step.negativeSamples = 5;
    step.seed = 42;
    const std::vector<float> rates = {0.2f, 0.15f, 0.1f, 0.05f};
    // The CPU: its neighbours, graph and epochs.
    ASSERT_TRUE(candidateNeighbours(c.points, lists, probe, probes, k, nbr, sq));
    const PolishGraph graph = polishGraph(nbr, sq, n, k);
    usable.resize(stride, 0);
    std::vector<float> cpu = start, next(start.size());
    for (size_t e = 0; e < rates.size(); ++e) {
        step.epoch = e;
        step.rate = rates[e];
        polishEpoch(graph, usable, keep, cpu.data(), next.data(), step);
        cpu.swap(next);
    }
    std::vector<float> gpu = start;
    std::vector<double> heard;
    PolishTimes times;
    auto device = cuda::makeCudaPolishDevice();
    ASSERT_TRUE(device->polish(
        c.points, lists, probe, probes, k, keep, gpu, step, rates,
        [&](double share) {
            heard.push_back(share);
            return true;
        },
        &times));
    EXPECT_EQ(heard, (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));
    EXPECT_GT(times.neighbours, 0.0);
    EXPECT_NE(gpu, start);
    if (hostVectorPath()) {
        EXPECT_EQ(gpu, cpu);
    } else {
        for (size_t i = 0; i < cpu.size(); ++i) EXPECT_NEAR(gpu[i], cpu[i], 1e-3f) << i;
    }
    // Stopped after the first epoch: the positions stay as they were.
    std::vector<float> stopped = start;
    EXPECT_FALSE(device->polish(
        c.points, lists, probe, probes, k, keep, stopped, step, rates,
        [](double share) { return share < 0.5; }, nullptr));
    EXPECT_EQ(stopped, start);
}

TEST(CudaPolish, ThePolishedPictureIsTheCpusOnTheDevice) {
    SEPAL_REQUIRE_GPU();
    if (!hostVectorPath()) GTEST_SKIP() << "skipped: the host has no AVX2 (its powers differ)";
    const size_t n = 12000, d = 27, g = 64;
    const PolishCase c = polishCase(n, d, g);
    std::vector<float> start(2 * n);
    makeCpuProjector()->project(c.points.data(), n, d, c.model, EmbedParams{}, start.data());
    auto device = cuda::makeCudaPolishDevice();
    auto search = makeCpuNearestSearch();
    PolishParams p;
    p.epochs = 20;
    std::vector<float> cpu = start, gpu = start;
    ASSERT_TRUE(polishPositions(c.points, c.model, cpu.data(), p, *search));
    p.device = device.get();
    ASSERT_TRUE(polishPositions(c.points, c.model, gpu.data(), p, *search));
    EXPECT_EQ(gpu, cpu);
    EXPECT_NE(gpu, start);
}

}  // namespace
}  // namespace sepal::test
