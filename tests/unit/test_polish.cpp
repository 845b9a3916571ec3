// The polish of EmbedSOM's picture, UMAP-like and t-SNE-like: it keeps more neighbourhoods than
// EmbedSOM alone on a curved shape, gives the same positions on any number of threads, does
// nothing at 0 epochs, and leaves cells with a missing value where they were.

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/common/error.h"
#include "core/embedsom/embedsom.h"
#include "core/metrics/quality.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/polish.h"
#include "core/pipeline/polish_neighbours.h"
#include "core/pipeline/tsne_attraction.h"

namespace sepal {
namespace {

// A noisy 3D spiral: a shape whose neighbourhoods a coarse landmark layout bends.
Matrix spiral(size_t n) {
    Matrix m(n, 3);
    for (size_t i = 0; i < n; ++i) {
        const double t = 12.0 * double(i) / double(n);
        const double wobble = 0.15 * std::sin(double(i) * 12.9898);
        m.at(i, 0) = float((1 + t) * std::cos(t) + wobble);
        m.at(i, 1) = float((1 + t) * std::sin(t) - wobble);
        m.at(i, 2) = float(0.3 * std::cos(double(i) * 78.233));
    }
    return m;
}

struct Embedded {
    Matrix points;
    EmbedResult result;
};

Embedded embedSpiral(size_t n) {
    Embedded e{spiral(n), {}};
    EmbedSettings s;
    s.landmarks = parseLandmarkSpec("kmeans:64");
    s.params = defaultEmbedParams(s.landmarks);
    auto projector = makeCpuProjector();
    auto search = makeCpuNearestSearch();
    e.result = embedMatrix(e.points, s, *projector, *search);
    return e;
}

double trust(const Matrix& points, const std::vector<float>& xy) {
    QualityParams q;
    q.sampleSize = 0;
    return trustworthiness(points.data(), points.rows, points.cols, xy.data(), q);
}

/// The polish keeps more neighbourhoods of a 4,000-cell spiral than EmbedSOM alone. (The
/// UMAP-like polish reaches the same level from layouts that start apart: 0.9924 -> 0.99765 with
/// the bisection-calibrated perplexity, 0.9961 -> 0.99764 with Newton's steps.)
void expectMoreNeighbourhoods(PolishKernel kernel, size_t epochs) {
    const Embedded e = embedSpiral(4000);
    std::vector<float> xy(e.result.xy.values);
    PolishParams p;
    p.kernel = kernel;
    p.epochs = epochs;
    auto search = makeCpuNearestSearch();
    polishPositions(e.points, e.result.model, xy.data(), p, *search);
    const double before = trust(e.points, e.result.xy.values), after = trust(e.points, xy);
    EXPECT_GT(after, before + 0.001) << before << " -> " << after;
    EXPECT_GT(after, 0.997) << before << " -> " << after;
}

/// The polish of `e` (cell 17 with a missing value) on one thread and on two: the same positions,
/// moved, cell 17 where it was.
void expectSameOnAnyThreads(const Embedded& e, const PolishParams& p) {
    auto search = makeCpuNearestSearch();
    std::vector<float> results[2];
    const int threads = omp_get_max_threads();
    for (int t = 0; t < 2; ++t) {
        omp_set_num_threads(t == 0 ? 1 : 2);
        results[t] = e.result.xy.values;
        polishPositions(e.points, e.result.model, results[t].data(), p, *search);
    }
    omp_set_num_threads(threads);
    EXPECT_EQ(results[0], results[1]);
    EXPECT_NE(results[0], e.result.xy.values);
    EXPECT_EQ(results[0][34], e.result.xy.values[34]);
    EXPECT_EQ(results[0][35], e.result.xy.values[35]);
}

TEST(Polish, KeepsMoreNeighbourhoodsThanEmbedsomAlone) {
    expectMoreNeighbourhoods(PolishKernel::Umap, 20);
}

TEST(Polish, ThreadsChangeNothingAndZeroEpochsIsNoPolish) {
    Embedded e = embedSpiral(3000);
    e.points.at(17, 1) = NAN;  // a cell with a missing value keeps its place
    PolishParams p;
    p.epochs = 8;
    expectSameOnAnyThreads(e, p);
    auto search = makeCpuNearestSearch();
    std::vector<float> none(e.result.xy.values);
    p.epochs = 0;
    polishPositions(e.points, e.result.model, none.data(), p, *search);
    EXPECT_EQ(none, e.result.xy.values);
    p.epochs = 3, p.k = 0;
    EXPECT_THROW(polishPositions(e.points, e.result.model, none.data(), p, *search), InputError);
}

TEST(Polish, StudentTKeepsMoreNeighbourhoodsThanEmbedsomAlone) {
    expectMoreNeighbourhoods(PolishKernel::StudentT, 150);
}

TEST(Polish, StudentTIsTheSameWithAndWithoutAvx2) {
    const Embedded e = embedSpiral(1500);
    auto search = makeCpuNearestSearch();
    PolishParams p;
    p.kernel = PolishKernel::StudentT;
    p.epochs = 20;
    std::vector<float> results[2];
    for (int path = 0; path < 2; ++path) {
        useTsneAttractionAvx2(path == 0);
        results[path] = e.result.xy.values;
        EXPECT_TRUE(polishPositions(e.points, e.result.model, results[path].data(), p, *search));
    }
    useTsneAttractionAvx2(true);
    EXPECT_EQ(results[0], results[1]);
    EXPECT_NE(results[0], e.result.xy.values);
}

TEST(Polish, StudentTThreadsChangeNothingAndBadPerplexitiesAreRefused) {
    Embedded e = embedSpiral(2000);
    e.points.at(17, 1) = NAN;
    PolishParams p;
    p.kernel = PolishKernel::StudentT;
    p.epochs = 20;
    expectSameOnAnyThreads(e, p);
    auto search = makeCpuNearestSearch();
    for (float perplexity : {0.5f, 101.0f, float(NAN)}) {
        p.perplexity = perplexity;
        std::vector<float> xy(e.result.xy.values);
        EXPECT_THROW(polishPositions(e.points, e.result.model, xy.data(), p, *search), InputError)
            << perplexity;
    }
}

}  // namespace
}  // namespace sepal

namespace sepal {
namespace {

/// Progress rises to 1 over the epochs; a false answer stops the polish and leaves the picture.
TEST(Polish, ReportsProgressAndStopsWhenAsked) {
    const Embedded e = embedSpiral(1500);
    auto search = makeCpuNearestSearch();
    for (PolishKernel kernel : {PolishKernel::Umap, PolishKernel::StudentT}) {
        PolishParams p;
        p.kernel = kernel;
        p.epochs = 12;
        std::vector<double> shares;
        p.onProgress = [&](double share) {
            shares.push_back(share);
            return true;
        };
        std::vector<float> xy(e.result.xy.values);
        EXPECT_TRUE(polishPositions(e.points, e.result.model, xy.data(), p, *search));
        // 0 before the neighbours, as their search starts (and during it) and once found, then
        // each epoch's.
        const auto zeros = std::count(shares.begin(), shares.end(), 0.0);
        EXPECT_GE(zeros, 3) << "asked before, as the neighbour search starts and after it";
        EXPECT_EQ(shares.size() - size_t(zeros), 12u);
        EXPECT_EQ(shares.back(), 1.0);
        EXPECT_TRUE(std::is_sorted(shares.begin(), shares.end()));
        EXPECT_NE(xy, e.result.xy.values);
        // Stopped after half the epochs, and as the neighbour search starts (the second question).
        p.onProgress = [](double share) { return share < 0.5; };
        std::vector<float> stopped(e.result.xy.values);
        EXPECT_FALSE(polishPositions(e.points, e.result.model, stopped.data(), p, *search));
        EXPECT_EQ(stopped, e.result.xy.values);
        int asked = 0;
        p.onProgress = [&asked](double) { return ++asked < 2; };
        EXPECT_FALSE(polishPositions(e.points, e.result.model, stopped.data(), p, *search));
        EXPECT_EQ(asked, 2);
        EXPECT_EQ(stopped, e.result.xy.values);
    }
}

/// Each cell's k nearest among its probes' lists, found the plain way: every candidate's squared
/// distance summed column by column, the candidates sorted by (distance, index). (No fused
/// products: the tests are built without FMA instructions, as core is with -ffp-contract=off.)
void expectPlainNeighbours(const Matrix& points, const CellLists& lists,
                           const std::vector<uint32_t>& probe, size_t probes, size_t k,
                           const std::vector<uint32_t>& nbr, const std::vector<float>& sq) {
    size_t differing = 0;
    for (size_t i = 0; i < points.rows; ++i) {
        std::vector<std::pair<float, uint32_t>> found;
        for (size_t p = 0; p < probes; ++p) {
            const uint32_t u = probe[i * probes + p];
            for (size_t c = lists.offset[u]; c < lists.offset[u + 1]; ++c) {
                const uint32_t j = lists.cells[c];
                if (j == i) continue;
                float s = 0;
                for (size_t t = 0; t < points.cols; ++t) {
                    const float e = points.at(i, t) - points.at(j, t);
                    s += e * e;
                }
                found.push_back({s, j});
            }
        }
        std::sort(found.begin(), found.end());
        for (size_t r = 0; r < k; ++r) {
            const bool has = r < found.size();
            differing += nbr[i * k + r] != (has ? found[r].second : kNoNeighbour) ||
                         sq[i * k + r] != (has ? found[r].first : INFINITY);
        }
    }
    EXPECT_EQ(differing, 0u);
}

/// The neighbour search's vector path and portable path find each cell's plain k nearest, bit
/// for bit: on the spiral (3 columns) and on 11 columns of clustered cells with lists from a few
/// cells to hundreds (the vector path's blocks of 32 and 8 and their rest), ties included. (On a
/// CPU without AVX2 both runs take the portable path: it is still held to the plain search.)
TEST(Polish, TheNeighbourSearchIsThePlainOneWithAndWithoutAvx2) {
    const size_t probes = 2, k = 15;
    // Seven clusters of 11 columns, their values on a grid of quarters (many equal distances).
    Matrix wide(6000, 11);
    for (size_t i = 0; i < wide.rows; ++i)
        for (size_t t = 0; t < wide.cols; ++t) {
            const double centre = double((i % 7) * (t % 3)),
                         noise = std::sin(double(i * 31 + t * 7));
            wide.at(i, t) = float(std::round(4.0 * (centre + noise)) / 4.0);
        }
    const Matrix curve = spiral(5000);
    for (const Matrix* points : std::initializer_list<const Matrix*>{&curve, &wide}) {
        const size_t n = points->rows, d = points->cols;
        EmbedSettings s;
        s.landmarks = parseLandmarkSpec("kmeans:40");
        s.params = defaultEmbedParams(s.landmarks);
        auto projector = makeCpuProjector();
        auto search = makeCpuNearestSearch();
        const EmbedResult e = embedMatrix(*points, s, *projector, *search);
        std::vector<uint32_t> probe(n * probes);
        std::vector<float> probeDist(n * probes);
        search->search(points->data(), n, e.model.high.data(), e.model.count(), d, probes,
                       probe.data(), probeDist.data());
        const CellLists lists =
            listCellsByLandmark(std::vector<uint8_t>(n, 1), probe, probes, e.model.count());
        // Lists with a block of 32, one of 8 after it and a rest, for the vector path's three
        // parts.
        bool tails = false;
        for (size_t u = 0; u + 1 < lists.offset.size(); ++u) {
            const size_t count = lists.offset[u + 1] - lists.offset[u];
            tails = tails || (count > 40 && count % 32 >= 8 && count % 8 != 0);
        }
        EXPECT_TRUE(tails);
        std::vector<uint32_t> nbr[2];
        std::vector<float> sq[2];
        struct Restore {
            ~Restore() { useNeighbourSearchAvx2(true); }
        } restore;
        for (int path = 0; path < 2; ++path) {
            useNeighbourSearchAvx2(path == 0);
            ASSERT_TRUE(candidateNeighbours(*points, lists, probe, probes, k, nbr[path], sq[path]));
        }
        EXPECT_EQ(nbr[0], nbr[1]);
        EXPECT_EQ(sq[0], sq[1]);
        expectPlainNeighbours(*points, lists, probe, probes, k, nbr[0], sq[0]);
    }
}

/// The CPU's neighbour search (up to a minute at its pair limit) hears a stop before it starts
/// and after every 64 cells of the calling thread (on one thread: exactly 64 cells searched).
TEST(Polish, TheNeighbourSearchStopsWhenAsked) {
    const size_t n = 20000, probes = 2, k = 15;
    const Embedded e = embedSpiral(n);
    const size_t g = e.result.model.count();
    auto search = makeCpuNearestSearch();
    std::vector<uint32_t> probe(n * probes);
    std::vector<float> probeDist(n * probes);
    search->search(e.points.data(), n, e.result.model.high.data(), g, 3, probes, probe.data(),
                   probeDist.data());
    const CellLists lists = listCellsByLandmark(std::vector<uint8_t>(n, 1), probe, probes, g);
    const auto found = [&](const std::vector<uint32_t>& nbr) {
        size_t cells = 0;
        for (size_t i = 0; i < n; ++i) cells += nbr[i * k] != kNoNeighbour;
        return cells;
    };
    std::vector<uint32_t> nbr;
    std::vector<float> sq;
    int asked = 0;
    EXPECT_TRUE(candidateNeighbours(e.points, lists, probe, probes, k, nbr, sq, [&asked] {
        ++asked;
        return true;
    }));
    EXPECT_GE(asked, 1);
    EXPECT_EQ(found(nbr), n);
    // A stop asked for already: nothing is searched.
    asked = 0;
    EXPECT_FALSE(candidateNeighbours(e.points, lists, probe, probes, k, nbr, sq, [&asked] {
        ++asked;
        return false;
    }));
    EXPECT_EQ(asked, 1);
    EXPECT_EQ(found(nbr), 0u);
    // A stop during the search, on one thread: after the first 64 cells.
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    asked = 0;
    const bool done = candidateNeighbours(e.points, lists, probe, probes, k, nbr, sq,
                                          [&asked] { return ++asked < 2; });
    omp_set_num_threads(threads);
    EXPECT_FALSE(done);
    EXPECT_EQ(asked, 2);
    EXPECT_EQ(found(nbr), 64u);
}

}  // namespace
}  // namespace sepal
