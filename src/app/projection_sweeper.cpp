#include "app/projection_sweeper.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

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

// ---------------------------------------------------------------- FrameSweeper

void FrameSweeper::reset(std::shared_ptr<const Matrix> points, bool keepPositions) {
    m_points = std::move(points);
    m_n = m_points ? m_points->rows : 0;
    if (!keepPositions || m_xy.size() != 2 * m_n) m_xy.assign(2 * m_n, 0.0f);
    m_cursor = 0;
    m_remaining = m_n;
    m_highSeen = m_lowSeen = ~0ull;
    m_sweeps = 0;
    m_settled = m_n == 0;
    m_progress = m_settled ? 1 : 0;
}

void FrameSweeper::invalidate() {
    m_remaining = m_n;
    m_settled = m_n == 0;
}

void FrameSweeper::accept(const float* xy, const LandmarkModel& model) {
    std::copy(xy, xy + m_xy.size(), m_xy.begin());
    m_highSeen = model.highVersion;
    m_lowSeen = model.lowVersion;
    if (m_remaining > 0) ++m_sweeps;
    m_remaining = 0;
    m_settled = true;
    m_progress = 1;
}

void FrameSweeper::step(const LandmarkModel& model, const EmbedParams& params, Projector& projector,
                        double budgetMs, std::vector<Range>& changed) {
    m_lastStepMs = 0;
    if (m_paused || m_n == 0 || model.count() < 2 || m_points->cols != model.dim) return;
    if (model.highVersion != m_highSeen || model.lowVersion != m_lowSeen) {
        m_highSeen = model.highVersion;
        m_lowSeen = model.lowVersion;
        m_remaining = m_n;
    }
    auto start = Clock::now();
    while (m_remaining > 0) {
        double left = budgetMs - msSince(start);
        if (left <= 0) break;
        size_t slice = m_msPerPoint > 0 ? size_t(left / m_msPerPoint) : kMinSlice;
        slice = std::clamp(slice, kMinSlice, m_remaining);
        slice = std::min(slice, m_n - m_cursor);
        auto t0 = Clock::now();
        projector.project(m_points->row(m_cursor), slice, m_points->cols, model, params,
                          m_xy.data() + 2 * m_cursor);
        double perPoint = msSince(t0) / double(slice);
        m_msPerPoint = m_msPerPoint == 0 ? perPoint : 0.8 * m_msPerPoint + 0.2 * perPoint;
        changed.push_back({m_cursor, slice});
        m_cursor = (m_cursor + slice) % m_n;
        m_remaining -= slice;
        m_projectedTotal += slice;
        if (m_remaining == 0) ++m_sweeps;
    }
    m_lastStepMs = msSince(start);
    m_settled = m_remaining == 0;
    m_progress = 1.0 - double(m_remaining) / double(m_n);
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
    m_cursor = 0;
    m_remaining = 0;  // work starts at the next step, with the model it brings
    m_highSeen = m_lowSeen = ~0ull;
    m_sweeps = 0;
    m_settled = m_n == 0;
    m_progress = m_settled ? 1 : 0;
}

void ThreadSweeper::setPaused(bool paused) {
    std::lock_guard lock(m_mutex);
    m_paused = paused;
    if (paused) m_remaining = 0;
}

void ThreadSweeper::invalidate() {
    std::lock_guard lock(m_mutex);
    m_highSeen = m_lowSeen = ~0ull;
    m_settled = m_n == 0;
}

void ThreadSweeper::accept(const float* xy, const LandmarkModel& model) {
    std::lock_guard lock(m_mutex);
    std::copy(xy, xy + m_xy.size(), m_xy.begin());
    m_highSeen = model.highVersion;
    m_lowSeen = model.lowVersion;
    ++m_epoch;
    m_done.clear();
    m_remaining = 0;
    ++m_sweeps;
    m_settled = true;
    m_progress = 1;
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
        // The worker reads its own copy of the model; a change restarts the sweep where it is.
        m_highSeen = model.highVersion;
        m_lowSeen = model.lowVersion;
        m_model = model;
        m_params = params;
        m_projector = &projector;
        m_remaining = m_n;
        m_wake.notify_one();
    }
    std::deque<Slice> done;
    done.swap(m_done);
    bool quiet = m_remaining == 0 && m_inFlight == 0;
    m_lastStepMs = m_workMs;
    m_workMs = 0;
    lock.unlock();
    for (auto& s : done) {
        size_t count = s.xy.size() / 2;
        std::copy(s.xy.begin(), s.xy.end(), m_xy.begin() + long(2 * s.first));
        changed.push_back({s.first, count});
        m_projectedTotal += count;
        double perPoint = s.ms / double(count);
        m_msPerPoint = m_msPerPoint == 0 ? perPoint : 0.8 * m_msPerPoint + 0.2 * perPoint;
    }
    bool wasSettled = m_settled;
    m_settled = quiet && !fresh;
    if (m_settled && !wasSettled) ++m_sweeps;
    lock.lock();
    m_progress = m_n == 0 ? 1.0 : 1.0 - double(m_remaining + m_inFlight) / double(m_n);
}

void ThreadSweeper::run() {
    // One core is left to the UI thread (drawing, input); the worker takes the rest.
    omp_set_num_threads(std::max(1, omp_get_num_procs() - 1));
    std::unique_lock lock(m_mutex);
    while (true) {
        m_wake.wait(lock, [this] { return m_stop || (m_remaining > 0 && !m_paused); });
        if (m_stop) return;
        size_t slice = std::min({kThreadSlice, m_remaining, m_n - m_cursor});
        size_t first = m_cursor;
        uint64_t epoch = m_epoch;
        auto points = m_points;
        LandmarkModel model = m_model;
        EmbedParams params = m_params;
        Projector* projector = m_projector;
        m_cursor = (m_cursor + slice) % m_n;
        m_remaining -= slice;
        m_inFlight += slice;
        lock.unlock();
        Slice out{epoch, first, std::vector<float>(2 * slice), 0};
        std::string error;
        auto t0 = Clock::now();
        try {
            projector->project(points->row(first), slice, points->cols, model, params,
                               out.xy.data());
        } catch (const std::exception& e) {
            error = e.what();
        }
        out.ms = msSince(t0);
        lock.lock();
        m_inFlight -= slice;
        m_workMs += out.ms;
        if (!error.empty()) {
            m_error = error;
            m_remaining = 0;
        } else if (out.epoch == m_epoch) {
            m_done.push_back(std::move(out));
        }
    }
}

}  // namespace sepal::app
