// The fast CPU projector: blocked k-NN over transposed landmarks, then the O(k^2) pair loop
// with per-pair constants, on all cores. Every point's arithmetic is the same whichever thread
// runs it and whatever group it falls in, so results do not depend on the thread count.

#include <algorithm>
#include <vector>

#include "core/embedsom/embedsom.h"
#include "core/embedsom/fallback.h"
#include "core/embedsom/fast_point.h"
#include "core/embedsom/pair_constants.h"
#include "core/embedsom/projection_input.h"
#include "core/knn/landmark_tiles.h"

namespace sepal {

namespace {

class CpuProjector final : public Projector {
  public:
    std::string name() const override { return "cpu"; }

    ProjectionReport project(const float* points, size_t n, size_t d, const LandmarkModel& model,
                             const EmbedParams& params, float* out) override {
        bool found = false;
        return projectFindingNearest(points, n, d, model, params, out, nullptr, found);
    }

    /// The k-NN's first neighbour is the nearest landmark: kept when asked for (the labelling of
    /// a cohort's cells needs no second search).
    ProjectionReport projectFindingNearest(const float* points, size_t n, size_t d,
                                           const LandmarkModel& model, const EmbedParams& params,
                                           float* out, uint32_t* nearest, bool& found) override {
        const ScoreSetup setup = checkProjectionInput(points, n, d, model, params, out);
        ProjectionReport report;
        found = false;
        if (n == 0) return report;
        if (model.count() > kMaxPairTableLandmarks)
            return projectManyLandmarks(points, n, d, model, params, out);
        found = nearest != nullptr;
        m_pairs.update(model, params.adjust);
        m_tiles.build(model.high.data(), model.count(), d);
        const LandmarkTiles& tiles = m_tiles;
        const PairConstants& pairs = m_pairs;
        const size_t g = model.count(), kk = static_cast<size_t>(setup.topnn);
        const long long groups = static_cast<long long>((n + kPointGroup - 1) / kPointGroup);
        size_t nonFinite = 0, degenerate = 0;
#pragma omp parallel if (n >= 64) reduction(+ : nonFinite, degenerate)
        {
            std::vector<float> dist(kPointGroup * tiles.gp), a(kk);
            std::vector<uint32_t> idx(kk);
            FastPointScratch scratch;
            scratch.reserve(setup.topnn);
            // Taken in turns, not in fixed shares: apply's reading and writing threads share
            // the cores, and a fixed share would wait for the thread they slowed.
#pragma omp for schedule(dynamic, 64)
            for (long long grp = 0; grp < groups; ++grp) {
                const size_t first = static_cast<size_t>(grp) * kPointGroup;
                const size_t count = std::min(kPointGroup, n - first);
                const float* rows[kPointGroup];
                for (size_t p = 0; p < kPointGroup; ++p)
                    rows[p] = points + (first + std::min(p, count - 1)) * d;
                groupDistances(rows, tiles, dist.data());
                for (size_t p = 0; p < count; ++p) {
                    float* y = out + 2 * (first + p);
                    if (!allFinite(rows[p], d)) {
                        placeNonFinitePoint(rows[p], model, setup, y);
                        ++nonFinite;
                        continue;
                    }
                    selectNearest(dist.data() + p * tiles.gp, g, kk, idx.data(), a.data());
                    if (nearest) nearest[first + p] = idx[0];
                    if (!projectFastPoint(rows[p], model, a.data(), idx.data(), setup, pairs,
                                          params.adjust, scratch, y))
                        ++degenerate;
                }
            }
        }
        report.nonFinitePoints = nonFinite;
        report.degeneratePoints = degenerate;
        return report;
    }

  private:
    ProjectionReport projectManyLandmarks(const float* points, size_t n, size_t d,
                                          const LandmarkModel& model, const EmbedParams& params,
                                          float* out) {
        constexpr size_t kChunk = 1024;
        const long long chunks = static_cast<long long>((n + kChunk - 1) / kChunk);
        size_t nonFinite = 0, degenerate = 0;
#pragma omp parallel reduction(+ : nonFinite, degenerate)
        {
            auto plain = makeReferenceProjector();
#pragma omp for schedule(static)
            for (long long c = 0; c < chunks; ++c) {
                const size_t first = static_cast<size_t>(c) * kChunk;
                const size_t count = std::min(kChunk, n - first);
                const auto r =
                    plain->project(points + first * d, count, d, model, params, out + 2 * first);
                nonFinite += r.nonFinitePoints;
                degenerate += r.degeneratePoints;
            }
        }
        return {nonFinite, degenerate};
    }

    PairConstants m_pairs;
    LandmarkTiles m_tiles;
};

}  // namespace

std::unique_ptr<Projector> makeCpuProjector() {
    return std::make_unique<CpuProjector>();
}

}  // namespace sepal
