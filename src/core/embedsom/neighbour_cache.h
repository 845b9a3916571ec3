#pragma once
// EmbedSOM on the CPU that keeps each point's nearest landmarks. A point's position depends on
// its k + 1 nearest landmarks in data space (which only training changes) and on the 2D
// positions of its k nearest (which a drag changes): while the data-space landmarks stay, a
// drag re-projects only the points that list a moved landmark, from their kept lists, with the
// same arithmetic as makeCpuProjector's projector (the same positions, bit for bit).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/embedsom/pair_constants.h"
#include "core/embedsom/projector.h"
#include "core/embedsom/scores.h"
#include "core/knn/landmark_tiles.h"

namespace sepal {

/// Per point: its topnn nearest landmarks; per landmark: the points that list it among their
/// topn. Not thread-safe: one thread uses it at a time.
class NeighbourCache {
  public:
    /// At most `limitBytes` of lists and index (0: $SEPAL_NEIGHBOUR_CACHE_MB megabytes when set,
    /// else a quarter of the machine's memory).
    explicit NeighbourCache(size_t limitBytes = 0);

    /// Bytes the lists and the index of n points take with topnn neighbours of g landmarks.
    static size_t bytesFor(size_t n, int topnn, size_t g);

    /// Forgets every list and the model taken; the points to come number n.
    void reset(size_t n);

    /// Projects rows [first, first + count) of `points` (n x d, row-major) as makeCpuProjector's
    /// projector does, into out (count x 2): from a row's list when it has one for this model's
    /// data-space landmarks and k, else after finding it (and keeping it, while the lists fit).
    /// Throws InputError as the projector does.
    ProjectionReport projectRows(const float* points, size_t n, size_t d, size_t first,
                                 size_t count, const LandmarkModel& model,
                                 const EmbedParams& params, float* out);

    /// Projects the listed rows (each with its list, as takeChanges gives them) from their lists
    /// into out (count x 2, in the order of `rows`).
    void projectListed(const float* points, size_t d, const uint32_t* rows, size_t count,
                       const LandmarkModel& model, const EmbedParams& params, float* out);

    /// Forgets the last taken model (positions were placed elsewhere): the next change re-projects
    /// every row, from the lists where they match.
    void unsettle() { m_taken = false; }

    /// The rows whose positions change from the last taken model to `model`, which it records:
    /// those listing a landmark whose 2D position moved among their topn, and rows with missing
    /// values. Empty optional when the lists cannot tell (another data-space model, k, smooth or
    /// adjust, lists over the limit, no model taken yet, or most rows): then every row is due.
    /// A row without a list is never returned: it has not been projected with these landmarks,
    /// so it is due already. Positions stay exact when every row returned is projected (as any
    /// row due) with the latest model taken.
    std::optional<std::vector<uint32_t>> takeChanges(const LandmarkModel& model,
                                                     const EmbedParams& params);

    /// Bytes held now by the lists and the index.
    size_t bytes() const;
    /// Why the lists are not kept ("" while they are): over the limit, or too many landmarks.
    const std::string& refusal() const { return m_refusal; }

  private:
    // The lists were found for these landmarks (their bytes: versions cannot tell models
    // apart) and this k.
    struct Key {
        size_t g = 0, d = 0;
        int topn = 0, topnn = 0;
        std::vector<float> high;  // g x d
    };
    /// True when the lists were found for `model`'s data-space landmarks and this setup's k.
    bool matches(const LandmarkModel& model, const ScoreSetup& setup) const;
    /// Forgets the lists and keeps new ones for `model` and `setup` when they fit.
    void adopt(const LandmarkModel& model, const ScoreSetup& setup);
    void clearLists();
    void buildIndex();

    size_t m_limit = 0, m_n = 0;
    Key m_key;
    bool m_keeping = false;           // lists are kept for m_key
    std::vector<uint32_t> m_idx;      // n x topnn landmark indices
    std::vector<float> m_dist;        // n x topnn squared distances, ascending
    std::vector<uint8_t> m_state;     // per row: 0 no list, 1 list, 2 missing values
    size_t m_listed = 0;              // rows with state != 0
    std::vector<uint64_t> m_offset;   // g + 1: index of each landmark's rows in m_rows
    std::vector<uint32_t> m_rows;     // rows listing each landmark among their topn
    std::vector<uint32_t> m_missing;  // rows with missing values (always re-placed)
    bool m_indexed = false;
    // The model last taken: positions of rows not due follow it.
    bool m_taken = false;
    std::vector<float> m_low;
    EmbedParams m_params;
    std::string m_refusal;
    PairConstants m_pairs;
    LandmarkTiles m_tiles;
    bool m_tilesReady = false;           // m_tiles hold m_key's landmarks
    std::unique_ptr<Projector> m_plain;  // above kMaxPairTableLandmarks
};

}  // namespace sepal
