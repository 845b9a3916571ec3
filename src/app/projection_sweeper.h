#pragma once
// The CPU path's projection: after each model change the points it moved are re-projected (all
// of them, or on the CPU backend those a neighbour cache names), in slices, so that the UI never
// waits for a whole sweep.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/common/matrix.h"
#include "core/embedsom/neighbour_cache.h"
#include "core/embedsom/projector.h"

namespace sepal::app {

/// A range of points whose 2D positions changed and must be uploaded.
struct Range {
    size_t first = 0, count = 0;  ///< points [first, first + count)
};

/// What is left to project: a sweep of every point in order from a cursor, and points listed by
/// the neighbour cache (those a drag moved). Not thread-safe.
class SweepQueue {
  public:
    /// n points, nothing due.
    void reset(size_t n);
    /// Every point is due, continuing from the cursor; listed points are dropped.
    void all();
    /// These points (ascending) are due too (listed points go before the rest of a sweep).
    void add(const std::vector<uint32_t>& points);
    /// Points due.
    size_t due() const { return m_remaining + (m_listed.size() - m_next); }
    /// Points to project together: listed ones, or a range of the sweep.
    struct Piece {
        size_t first = 0, count = 0;   ///< a range of the sweep (when `points` is empty)
        std::vector<uint32_t> points;  ///< listed points
    };
    /// The next piece of at most `max` points: listed ones first, else a range of the sweep.
    Piece take(size_t max);

  private:
    size_t m_n = 0, m_cursor = 0, m_remaining = 0, m_next = 0;
    std::vector<uint32_t> m_listed;
};

/// Round-robin re-projection: when the model changes, every point is re-projected once more,
/// continuing from where the cursor is; on the CPU backend a neighbour cache keeps each point's
/// nearest landmarks, so that a drag re-projects only the points listing a moved landmark.
/// Positions are owned by the UI thread.
class Sweeper {
  public:
    virtual ~Sweeper() = default;
    /// New points (n x d, shared, never modified); keepPositions keeps the old 2D positions
    /// (same n) until the new ones arrive, else they start at 0. Every point is then due.
    virtual void reset(std::shared_ptr<const Matrix> points, bool keepPositions) = 0;
    /// Advances the sweep for this frame (budgetMs of work where the work is done in the frame)
    /// and appends the ranges whose positions changed. Throws InputError from the projector.
    virtual void step(const LandmarkModel& model, const EmbedParams& params, Projector& projector,
                      double budgetMs, std::vector<Range>& changed) = 0;
    /// Stops taking new work (the GPU projects instead) or resumes.
    virtual void setPaused(bool paused) = 0;
    /// Takes positions computed elsewhere (the GPU) for the current model: xy is n x 2.
    virtual void accept(const float* xy, const LandmarkModel& model) = 0;
    /// Marks every point as due again.
    virtual void invalidate() = 0;

    /// n x 2 positions, world units.
    const std::vector<float>& positions() const { return m_xy; }
    /// True when every point was projected with the current model.
    bool settled() const { return m_settled; }
    /// Fraction of the current sweep done, in [0, 1].
    double progress() const { return m_progress; }
    /// Milliseconds of projection work one full sweep costs (measured, extrapolated to n).
    double fullSweepMs() const { return m_msPerPoint * double(m_xy.size() / 2); }
    /// Milliseconds of projection work in the last step (or since the last step, on a thread).
    double lastStepMs() const { return m_lastStepMs; }
    /// Completed sweeps since reset.
    uint64_t sweeps() const { return m_sweeps; }
    /// Points projected since reset (throughput figures).
    uint64_t projectedTotal() const { return m_projectedTotal; }
    /// Bytes of the neighbour cache, and why it is not kept ("" while it is).
    virtual std::pair<size_t, std::string> cacheState() const = 0;
    /// Lets a worker take every core (nothing is being dragged, so the UI thread has little to
    /// do but draw the picture the worker finishes), or leaves one to the UI thread.
    virtual void useAllCores(bool) {}

  protected:
    /// Appends the ranges covering `points` (ascending) to `changed`, merging close ones.
    static void coverPoints(const std::vector<uint32_t>& points, std::vector<Range>& changed);
    /// Projects a piece with the cache (CPU backend) or the projector into xy (count x 2).
    static void projectPiece(const SweepQueue::Piece& piece, const Matrix& points,
                             const LandmarkModel& model, const EmbedParams& params,
                             Projector& projector, NeighbourCache& cache, float* xy);
    /// True when the neighbour cache gives this projector's positions (the CPU backend).
    static bool cacheServes(const Projector& projector) { return projector.name() == "cpu"; }

    std::vector<float> m_xy;
    bool m_settled = true;
    double m_progress = 1, m_msPerPoint = 0, m_lastStepMs = 0;
    uint64_t m_sweeps = 0, m_projectedTotal = 0;
};

/// Projects slices on the UI thread, within the frame's budget.
class FrameSweeper : public Sweeper {
  public:
    void reset(std::shared_ptr<const Matrix> points, bool keepPositions) override;
    void step(const LandmarkModel& model, const EmbedParams& params, Projector& projector,
              double budgetMs, std::vector<Range>& changed) override;
    void setPaused(bool paused) override { m_paused = paused; }
    void accept(const float* xy, const LandmarkModel& model) override;
    void invalidate() override;
    std::pair<size_t, std::string> cacheState() const override;

  private:
    std::shared_ptr<const Matrix> m_points;
    size_t m_n = 0;
    SweepQueue m_queue;
    NeighbourCache m_cache;
    uint64_t m_highSeen = ~0ull, m_lowSeen = ~0ull;
    bool m_paused = false;
};

/// Projects slices on a worker thread (one core fewer than the machine has, at least one), so
/// drawing and projecting overlap; finished slices are taken over at each step.
class ThreadSweeper : public Sweeper {
  public:
    ThreadSweeper();
    ~ThreadSweeper() override;
    void reset(std::shared_ptr<const Matrix> points, bool keepPositions) override;
    void step(const LandmarkModel& model, const EmbedParams& params, Projector& projector,
              double budgetMs, std::vector<Range>& changed) override;
    void setPaused(bool paused) override;
    void accept(const float* xy, const LandmarkModel& model) override;
    void invalidate() override;
    std::pair<size_t, std::string> cacheState() const override;
    void useAllCores(bool all) override { m_allCores = all; }

  private:
    struct Slice {
        uint64_t epoch;
        SweepQueue::Piece piece;
        std::vector<float> xy;
        double ms;
    };
    void run();

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::thread m_thread;
    // Shared with the worker (under m_mutex).
    std::shared_ptr<const Matrix> m_points;
    LandmarkModel m_model;
    EmbedParams m_params;
    Projector* m_projector = nullptr;
    size_t m_n = 0, m_inFlight = 0;
    SweepQueue m_queue;
    uint64_t m_epoch = 0;
    bool m_stop = false, m_paused = false;
    bool m_fresh = false;      // a model the worker has not planned for yet
    bool m_planning = false;   // the worker is planning for a model (unlocked)
    bool m_forget = false;     // the cache must forget its lists (new points)
    bool m_unsettled = false;  // positions came from elsewhere: the cache cannot tell changes
    size_t m_cacheBytes = 0;   // the worker's last report of its cache
    std::string m_cacheRefusal;
    std::deque<Slice> m_done;
    std::string m_error;
    double m_workMs = 0;
    std::atomic<bool> m_allCores{false};  // useAllCores: read by the worker before each slice
    // The worker thread only.
    NeighbourCache m_cache;
    // UI thread only.
    uint64_t m_highSeen = ~0ull, m_lowSeen = ~0ull;
};

/// The sweeper for this machine: on a worker thread when there are several cores (and
/// SEPAL_SWEEP_THREAD is not 0), else within the frame.
std::unique_ptr<Sweeper> makeSweeper();

}  // namespace sepal::app
