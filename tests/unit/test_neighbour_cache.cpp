// The neighbour cache against a full projection (makeCpuProjector's): after drags, several drags
// at once, parameter changes, added and removed landmarks, a training step and an undo, the cached
// positions equal the full projection's bit for bit, and a drag re-projects only the cells that
// list the moved landmark among their k nearest.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/embedsom/embedsom.h"
#include "core/embedsom/neighbour_cache.h"
#include "embedsom_data.h"

namespace sepal {
namespace {

struct Scene {
    size_t n = 6003, d = 8, g = 64;
    std::vector<float> x;
    LandmarkModel model;
    EmbedParams params{.k = 10, .smooth = -1.0f, .adjust = 2.0f};
    std::vector<float> cached;  // n x 2, what the cache's user holds
    NeighbourCache cache;

    explicit Scene(size_t limit = 0) : cache(limit) {
        x = test::randomPoints(n, d, 7, 5);
        model = test::gridModel(x, g, d);
        for (size_t i = 250; i < n; i += 500) x[i * d + i % d] = NAN;  // 12 with missing values
        cached.assign(2 * n, 0.0f);
        cache.reset(n);
    }
    std::vector<float> full() const {
        std::vector<float> y(2 * n);
        makeCpuProjector()->project(x.data(), n, d, model, params, y.data());
        return y;
    }
    /// Rows [first, last) in uneven slices.
    void sweep(size_t first = 0, size_t last = 0) {
        last = last ? last : n;
        while (first < last) {
            const size_t count = std::min<size_t>(777, last - first);
            cache.projectRows(x.data(), n, d, first, count, model, params,
                              cached.data() + 2 * first);
            first += count;
        }
    }
    /// The first model: nothing to compare with, every row due.
    void start() {
        EXPECT_FALSE(cache.takeChanges(model, params).has_value());
        sweep();
    }
    /// Projects the listed rows from their lists into `cached`.
    void project(const std::vector<uint32_t>& rows) {
        std::vector<float> y(2 * rows.size());
        cache.projectListed(x.data(), d, rows.data(), rows.size(), model, params, y.data());
        for (size_t i = 0; i < rows.size(); ++i)
            std::copy(y.begin() + long(2 * i), y.begin() + long(2 * i + 2),
                      cached.begin() + long(2 * rows[i]));
    }
    /// Applies the change the cache reports; returns the rows it re-projected (or n for all).
    size_t follow() {
        const auto rows = cache.takeChanges(model, params);
        if (!rows) {
            sweep();
            return n;
        }
        project(*rows);
        return rows->size();
    }
    void drag(size_t u, float dx, float dy) {
        model.low[2 * u] += dx;
        model.low[2 * u + 1] += dy;
        ++model.lowVersion;
    }
};

void expectSameBits(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0 && differ++ < 3)
            ADD_FAILURE() << what << ": cell " << i / 2 << " axis " << i % 2 << ": " << a[i]
                          << " against " << b[i];
    EXPECT_EQ(differ, 0u) << what;
}

TEST(NeighbourCache, ADragReprojectsOnlyTheCellsListingTheMovedLandmark) {
    Scene s;
    s.start();
    expectSameBits(s.cached, s.full(), "first sweep");
    const std::vector<float> before = s.cached;
    s.drag(20, 0.7f, -0.3f);
    const size_t redone = s.follow();
    expectSameBits(s.cached, s.full(), "after a drag");
    // About k/g of the cells list a given landmark; far fewer than all.
    EXPECT_GT(redone, 0u);
    EXPECT_LT(redone, s.n / 3);
    size_t moved = 0;
    for (size_t i = 0; i < s.n; ++i)
        moved += before[2 * i] != s.cached[2 * i] || before[2 * i + 1] != s.cached[2 * i + 1];
    EXPECT_GT(moved, 0u);
    EXPECT_LE(moved, redone);
    // No change: nothing but the cells with missing values.
    EXPECT_EQ(s.follow(), 12u);
}

TEST(NeighbourCache, DragsBeforeAFollowAndUndoGiveTheFullProjection) {
    Scene s;
    s.start();
    const std::vector<float> low = s.model.low;
    s.drag(3, 0.5f, 0.5f);
    s.drag(40, -1.0f, 0.25f);
    s.drag(3, 0.1f, 0.0f);
    s.follow();
    expectSameBits(s.cached, s.full(), "three drags of two landmarks");
    s.model.low = low;  // undo
    ++s.model.lowVersion;
    s.follow();
    expectSameBits(s.cached, s.full(), "after the undo");
}

TEST(NeighbourCache, ParametersLandmarksAndTrainingGoThroughEveryCell) {
    Scene s;
    s.start();
    s.params.adjust = 1.0f;
    EXPECT_EQ(s.follow(), s.n);
    expectSameBits(s.cached, s.full(), "adjust changed");
    std::vector<float> extra(s.x.begin() + long(s.d), s.x.begin() + long(2 * s.d));
    s.model.add(extra.data(), 0.5f, 0.5f);
    EXPECT_EQ(s.follow(), s.n);
    expectSameBits(s.cached, s.full(), "a landmark added");
    s.model.remove(7);
    EXPECT_EQ(s.follow(), s.n);
    expectSameBits(s.cached, s.full(), "a landmark removed");
    for (float& v : s.model.high) v *= 1.01f;  // a training step moves every landmark
    ++s.model.highVersion;
    EXPECT_EQ(s.follow(), s.n);
    expectSameBits(s.cached, s.full(), "a training step");
    s.drag(12, 0.2f, 0.2f);
    EXPECT_LT(s.follow(), s.n / 3);
    expectSameBits(s.cached, s.full(), "a drag after training");
}

TEST(NeighbourCache, DragsDuringTheFirstSweepNeedOnlyTheRowsAlreadyProjected) {
    Scene s;
    EXPECT_FALSE(s.cache.takeChanges(s.model, s.params).has_value());
    s.sweep(0, s.n / 2);
    // A drag half way: of the rows done, those listing the landmark; the rest are due anyway.
    s.drag(9, 0.3f, 0.3f);
    const auto rows = s.cache.takeChanges(s.model, s.params);
    ASSERT_TRUE(rows.has_value());
    EXPECT_GT(rows->size(), 0u);
    for (uint32_t r : *rows) ASSERT_LT(r, s.n / 2);
    s.project(*rows);
    s.sweep(s.n / 2, s.n);
    expectSameBits(s.cached, s.full(), "after the drag half way");
}

TEST(NeighbourCache, OverItsMemoryLimitItProjectsEverythingAndSaysWhy) {
    Scene s(1000);
    s.start();
    EXPECT_NE(s.cache.refusal().find("more than"), std::string::npos) << s.cache.refusal();
    EXPECT_EQ(s.cache.bytes(), 0u);
    s.drag(5, 0.4f, 0.0f);
    EXPECT_EQ(s.follow(), s.n);
    expectSameBits(s.cached, s.full(), "without lists");
    EXPECT_GT(NeighbourCache::bytesFor(10'000'000, 17, 512), size_t(2e9));
}

}  // namespace
}  // namespace sepal
