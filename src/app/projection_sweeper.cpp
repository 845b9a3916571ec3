#include "app/projection_sweeper.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>

#include "core/common/error.h"

namespace sepal::app {

namespace {
using Clock = std::chrono::steady_clock;
constexpr size_t kMinSlice = 2048;
constexpr size_t kThreadSlice = 16384;

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
}  // namespace

std::unique_ptr<Sweeper> makeSweeper() {
    const char* env = std::getenv("SEPAL_SWEEP_THREAD");
    bool thread = std::thread::hardware_concurrency() > 1 && !(env && std::strcmp(env, "0") == 0);
    if (thread) return std::make_unique<ThreadSweeper>();
    return std::make_unique<FrameSweeper>();
}

// ---------------------------------------------------------------- SweepQueue

void SweepQueue::reset(size_t n) {
    m_n = n;
    m_cursor = m_remaining = m_next = 0;
    m_listed.clear();
}

void SweepQueue::all() {
    m_remaining = m_n;
    m_listed.clear();
    m_next = 0;
}

void SweepQueue::add(const std::vector<uint32_t>& points) {
    if (points.empty()) return;
    std::vector<uint32_t> merged;
    merged.reserve(m_listed.size() - m_next + points.size());
    std::set_union(m_listed.begin() + long(m_next), m_listed.end(), points.begin(), points.end(),
                   std::back_inserter(merged));
    m_listed.swap(merged);
    m_next = 0;
}

SweepQueue::Piece SweepQueue::take(size_t max) {
    Piece piece;
    if (m_next < m_listed.size()) {
        const size_t count = std::min(max, m_listed.size() - m_next);
        piece.points.assign(m_listed.begin() + long(m_next),
                            m_listed.begin() + long(m_next + count));
        m_next += count;
        if (m_next == m_listed.size()) m_listed.clear(), m_next = 0;
        return piece;
    }
    piece.first = m_cursor;
    piece.count = std::min({max, m_remaining, m_n - m_cursor});
    m_cursor = m_n == 0 ? 0 : (m_cursor + piece.count) % m_n;
    m_remaining -= piece.count;
    return piece;
}

// ---------------------------------------------------------------- Sweeper

void Sweeper::coverPoints(const std::vector<uint32_t>& points, std::vector<Range>& changed) {
    // Points closer than this share a range: fewer, larger uploads.
    constexpr size_t kGap = 4096;
    for (size_t i = 0; i < points.size();) {
        size_t j = i + 1;
        while (j < points.size() && points[j] - points[j - 1] <= kGap) ++j;
        changed.push_back({points[i], size_t(points[j - 1]) - points[i] + 1});
        i = j;
    }
}

void Sweeper::projectPiece(const SweepQueue::Piece& piece, const Matrix& points,
                           const LandmarkModel& model, const EmbedParams& params,
                           Projector& projector, NeighbourCache& cache, float* xy) {
    if (!piece.points.empty())
        cache.projectListed(points.data(), points.cols, piece.points.data(), piece.points.size(),
                            model, params, xy);
    else if (cacheServes(projector))
        cache.projectRows(points.data(), points.rows, points.cols, piece.first, piece.count, model,
                          params, xy);
    else
        projector.project(points.row(piece.first), piece.count, points.cols, model, params, xy);
}

// ---------------------------------------------------------------- FrameSweeper

void FrameSweeper::reset(std::shared_ptr<const Matrix> points, bool keepPositions) {
    m_points = std::move(points);
    m_n = m_points ? m_points->rows : 0;
    if (!keepPositions || m_xy.size() != 2 * m_n) m_xy.assign(2 * m_n, 0.0f);
    m_queue.reset(m_n);
    m_queue.all();
    m_cache.reset(m_n);
    m_highSeen = m_lowSeen = ~0ull;
    m_sweeps = 0;
    m_settled = m_n == 0;
    m_progress = m_settled ? 1 : 0;
}

void FrameSweeper::invalidate() {
    m_queue.all();
    m_cache.unsettle();
    m_settled = m_n == 0;
}

void FrameSweeper::accept(const float* xy, const LandmarkModel& model) {
    std::copy(xy, xy + m_xy.size(), m_xy.begin());
    m_highSeen = model.highVersion;
    m_lowSeen = model.lowVersion;
    if (m_queue.due() > 0) ++m_sweeps;
    m_queue.reset(m_n);
    m_cache.unsettle();  // the cache did not place these positions
    m_settled = true;
    m_progress = 1;
}

std::pair<size_t, std::string> FrameSweeper::cacheState() const {
    return {m_cache.bytes(), m_cache.refusal()};
}

void FrameSweeper::step(const LandmarkModel& model, const EmbedParams& params, Projector& projector,
                        double budgetMs, std::vector<Range>& changed) {
    m_lastStepMs = 0;
    if (m_paused || m_n == 0 || model.count() < 2 || m_points->cols != model.dim) return;
    if (model.highVersion != m_highSeen || model.lowVersion != m_lowSeen) {
        m_highSeen = model.highVersion;
        m_lowSeen = model.lowVersion;
        const auto moved =
            cacheServes(projector) ? m_cache.takeChanges(model, params) : std::nullopt;
        if (moved)
            m_queue.add(*moved);
        else
            m_queue.all();
    }
    auto start = Clock::now();
    std::vector<float> xy;
    while (m_queue.due() > 0) {
        double left = budgetMs - msSince(start);
        if (left <= 0) break;
        size_t slice = m_msPerPoint > 0 ? size_t(left / m_msPerPoint) : kMinSlice;
        const SweepQueue::Piece piece = m_queue.take(std::max(slice, kMinSlice));
        const bool wasSweep = piece.points.empty();
        const size_t count = wasSweep ? piece.count : piece.points.size();
        xy.resize(2 * count);
        auto t0 = Clock::now();
        projectPiece(piece, *m_points, model, params, projector, m_cache, xy.data());
        double perPoint = msSince(t0) / double(count);
        m_msPerPoint = m_msPerPoint == 0 ? perPoint : 0.8 * m_msPerPoint + 0.2 * perPoint;
        if (wasSweep) {
            std::copy(xy.begin(), xy.end(), m_xy.begin() + long(2 * piece.first));
            changed.push_back({piece.first, count});
        } else {
            for (size_t i = 0; i < count; ++i) {
                m_xy[2 * size_t(piece.points[i])] = xy[2 * i];
                m_xy[2 * size_t(piece.points[i]) + 1] = xy[2 * i + 1];
            }
            coverPoints(piece.points, changed);
        }
        m_projectedTotal += count;
        if (m_queue.due() == 0) ++m_sweeps;
    }
    m_lastStepMs = msSince(start);
    m_settled = m_queue.due() == 0;
    m_progress = 1.0 - double(m_queue.due()) / double(m_n);
}

// ---------------------------------------------------------------- ThreadSweeper

ThreadSweeper::ThreadSweeper() {
    m_thread = std::thread([this] { run(); });
}

ThreadSweeper::~ThreadSweeper() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void ThreadSweeper::reset(std::shared_ptr<const Matrix> points, bool keepPositions) {
    std::lock_guard lock(m_mutex);
    m_points = std::move(points);
    m_n = m_points ? m_points->rows : 0;
    if (!keepPositions || m_xy.size() != 2 * m_n) m_xy.assign(2 * m_n, 0.0f);
    ++m_epoch;  // slices of the old points are dropped when they arrive
    m_done.clear();
    m_queue.reset(m_n);  // work starts at the next step, with the model it brings
    m_fresh = false;
    m_forget = true;
    m_highSeen = m_lowSeen = ~0ull;
    m_sweeps = 0;
    m_settled = m_n == 0;
    m_progress = m_settled ? 1 : 0;
}

void ThreadSweeper::setPaused(bool paused) {
    std::lock_guard lock(m_mutex);
    m_paused = paused;
    if (paused) m_queue.reset(m_n), m_fresh = false;
}

void ThreadSweeper::invalidate() {
    std::lock_guard lock(m_mutex);
    m_highSeen = m_lowSeen = ~0ull;
    m_unsettled = true;
    m_settled = m_n == 0;
}

void ThreadSweeper::accept(const float* xy, const LandmarkModel& model) {
    std::lock_guard lock(m_mutex);
    std::copy(xy, xy + m_xy.size(), m_xy.begin());
    m_highSeen = model.highVersion;
    m_lowSeen = model.lowVersion;
    ++m_epoch;
    m_done.clear();
    m_queue.reset(m_n);
    m_fresh = false;
    m_unsettled = true;  // the cache did not place these positions
    ++m_sweeps;
    m_settled = true;
    m_progress = 1;
}

std::pair<size_t, std::string> ThreadSweeper::cacheState() const {
    std::lock_guard lock(m_mutex);
    return {m_cacheBytes, m_cacheRefusal};
}

void ThreadSweeper::step(const LandmarkModel& model, const EmbedParams& params,
                         Projector& projector, double, std::vector<Range>& changed) {
    std::unique_lock lock(m_mutex);
    if (!m_error.empty()) {
        std::string error = std::move(m_error);
        m_error.clear();
        throw InputError(error);
    }
    bool fresh = model.highVersion != m_highSeen || model.lowVersion != m_lowSeen;
    // Nothing to project (no data, no model yet) is settled: a failed first open must not keep
    // the window waiting.
    const bool projectable =
        !m_paused && m_n > 0 && model.count() >= 2 && m_points->cols == model.dim;
    fresh = fresh && projectable;
    if (fresh) {
        // The worker reads its own copy of the model and plans what it changed (with its
        // neighbour cache, which only it touches).
        m_highSeen = model.highVersion;
        m_lowSeen = model.lowVersion;
        m_model = model;
        m_params = params;
        m_projector = &projector;
        m_fresh = true;
        m_wake.notify_one();
    }
    std::deque<Slice> done;
    done.swap(m_done);
    const bool quiet = !m_fresh && !m_planning && m_queue.due() == 0 && m_inFlight == 0;
    m_lastStepMs = m_workMs;
    m_workMs = 0;
    lock.unlock();
    for (auto& s : done) {
        const SweepQueue::Piece& piece = s.piece;
        const size_t count = s.xy.size() / 2;
        if (piece.points.empty()) {
            std::copy(s.xy.begin(), s.xy.end(), m_xy.begin() + long(2 * piece.first));
            changed.push_back({piece.first, count});
        } else {
            for (size_t i = 0; i < count; ++i) {
                m_xy[2 * size_t(piece.points[i])] = s.xy[2 * i];
                m_xy[2 * size_t(piece.points[i]) + 1] = s.xy[2 * i + 1];
            }
            coverPoints(piece.points, changed);
        }
        m_projectedTotal += count;
        double perPoint = s.ms / double(count);
        m_msPerPoint = m_msPerPoint == 0 ? perPoint : 0.8 * m_msPerPoint + 0.2 * perPoint;
    }
    bool wasSettled = m_settled;
    m_settled = quiet && !fresh;
    if (m_settled && !wasSettled) ++m_sweeps;
    lock.lock();
    m_progress =
        m_n == 0 ? 1.0 : 1.0 - double(std::min(m_n, m_queue.due() + m_inFlight)) / double(m_n);
    // A model not planned yet has work to come: not done, though nothing is queued.
    if (!m_settled) m_progress = std::min(m_progress, std::nextafter(1.0, 0.0));
}

void ThreadSweeper::run() {
    // One core is left to the UI thread (drawing, input) while something is dragged; the
    // worker takes the rest, and every core otherwise (useAllCores).
    const int procs = omp_get_num_procs();
    std::unique_lock lock(m_mutex);
    while (true) {
        m_wake.wait(lock, [this] {
            return m_stop || (!m_paused && (m_fresh || m_queue.due() > 0 || m_forget));
        });
        if (m_stop) return;
        if (m_forget || m_unsettled) {
            const bool forget = m_forget;
            const size_t n = m_n;
            m_forget = m_unsettled = false;
            lock.unlock();
            if (forget)
                m_cache.reset(n);
            else
                m_cache.unsettle();
            lock.lock();
            continue;
        }
        if (m_fresh) {
            // What the new model changed: the points listing a moved landmark, else all.
            m_fresh = false;
            m_planning = true;  // not settled while the plan is made unlocked
            const uint64_t epoch = m_epoch;
            LandmarkModel model = m_model;
            EmbedParams params = m_params;
            const bool cached = cacheServes(*m_projector);
            lock.unlock();
            std::optional<std::vector<uint32_t>> moved;
            std::string error;
            try {
                if (cached) moved = m_cache.takeChanges(model, params);
            } catch (const std::exception& e) {
                error = e.what();
            }
            lock.lock();
            m_planning = false;
            // Points opened (or positions taken from the GPU) meanwhile: this plan is of the old.
            if (epoch != m_epoch) continue;
            if (!error.empty()) m_error = error;
            try {
                if (moved)
                    m_queue.add(*moved);
                else
                    m_queue.all();
            } catch (const std::exception& e) {  // no memory for the list: say so, stop
                m_error = e.what();
                m_queue.reset(m_n);
            }
            m_cacheBytes = m_cache.bytes();
            m_cacheRefusal = m_cache.refusal();
            continue;
        }
        Slice out{m_epoch, {}, {}, 0};
        try {
            out.piece = m_queue.take(kThreadSlice);
        } catch (const std::exception& e) {  // no memory for the piece: say so, stop
            m_error = e.what();
            m_queue.reset(m_n);
            continue;
        }
        const size_t count = out.piece.points.empty() ? out.piece.count : out.piece.points.size();
        auto points = m_points;
        LandmarkModel model = m_model;
        EmbedParams params = m_params;
        Projector* projector = m_projector;
        m_inFlight += count;
        lock.unlock();
        omp_set_num_threads(m_allCores ? procs : std::max(1, procs - 1));
        std::string error;
        auto t0 = Clock::now();
        try {
            out.xy.resize(2 * count);
            projectPiece(out.piece, *points, model, params, *projector, m_cache, out.xy.data());
        } catch (const std::exception& e) {
            error = e.what();
        }
        out.ms = msSince(t0);
        lock.lock();
        m_inFlight -= count;
        m_workMs += out.ms;
        if (!error.empty()) {
            m_error = error;
            m_queue.reset(m_n);
        } else if (out.epoch == m_epoch) {
            m_cacheBytes = m_cache.bytes();
            m_cacheRefusal = m_cache.refusal();
            m_done.push_back(std::move(out));
        }
    }
}

}  // namespace sepal::app
