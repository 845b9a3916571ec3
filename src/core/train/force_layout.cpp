#include "core/train/force_layout.h"

#include <algorithm>
#include <cmath>

#include "core/model/landmark_edit.h"
#include "core/train/landmark_graph.h"
#include "core/train/sampling.h"
#include "core/train/topology.h"

namespace sepal {

namespace {
// A graph rebuilt after the data-space landmarks moved waits this many steps, so that a
// concurrently running k-means does not cost an O(g^2 d) rebuild every frame.
constexpr size_t kGraphRefreshSteps = 20;
}  // namespace

double ForceLayoutTrainer::progress() const {
    if (m_params.iterations == 0) return -1.0;
    return std::min(1.0, static_cast<double>(m_iter) / static_cast<double>(m_params.iterations));
}

void ForceLayoutTrainer::prepare(LandmarkModel& model) {
    const size_t g = model.count();
    if (m_length <= 0.0f)
        m_length = m_params.springLength > 0.0f ? m_params.springLength : medianMapSpacing(model);
    if (m_velocity.size() != 2 * g) m_velocity.assign(2 * g, 0.0f);
    ++m_sinceGraph;
    const bool stale = m_graphVersion != model.highVersion;
    if (m_params.k > 0 && stale &&
        (m_graphVersion == ~uint64_t{0} || m_sinceGraph >= kGraphRefreshSteps)) {
        buildLandmarkGraph(model, m_params.k);
        m_graphVersion = model.highVersion;
        m_sinceGraph = 0;
    }
    // Landmarks on one spot feel no force from each other: nudge them apart deterministically.
    SplitMix rng(m_params.seed);
    for (size_t i = 1; i < g; ++i) {
        const float jitter = 1e-3f * m_length;
        if (model.low[2 * i] == model.low[2 * (i - 1)] &&
            model.low[2 * i + 1] == model.low[2 * (i - 1) + 1] && !lowLocked(model, i)) {
            model.low[2 * i] += jitter * static_cast<float>(rng.uniform() - 0.5);
            model.low[2 * i + 1] += jitter * static_cast<float>(rng.uniform() - 0.5);
        }
    }
}

double ForceLayoutTrainer::energy(const LandmarkModel& model) const {
    const float len = m_length > 0.0f ? m_length : medianMapSpacing(model);
    const size_t g = model.count();
    double e = 0.0;
    for (auto [a, b] : model.edges) {
        const double dist = std::hypot(model.low[2 * a] - model.low[2 * b],
                                       model.low[2 * a + 1] - model.low[2 * b + 1]);
        e += 0.5 * m_params.spring * (dist - len) * (dist - len);
    }
    const double l2 = static_cast<double>(len) * len;
    for (size_t i = 0; i < g; ++i)
        for (size_t j = i + 1; j < g; ++j) {
            const double dx = model.low[2 * i] - model.low[2 * j];
            const double dy = model.low[2 * i + 1] - model.low[2 * j + 1];
            e += m_params.repulsion * l2 / (1.0 + (dx * dx + dy * dy) / l2);
        }
    return e;
}

bool ForceLayoutTrainer::step(LandmarkModel& model, const TrainingData&) {
    if (m_params.iterations > 0 && m_iter >= m_params.iterations) return false;
    const size_t g = model.count();
    if (g < 2) return false;
    prepare(model);
    const float len = m_length, l2 = len * len;
    const float maxMove = len;  // no landmark jumps more than one rest length per iteration
    m_force.resize(2 * g);
    for (size_t it = 0; it < m_params.iterationsPerStep; ++it) {
        const float* low = model.low.data();
        // Repulsion, per landmark independently (same sums whatever the thread count).
#pragma omp parallel for schedule(static) if (g >= kParallelLandmarks)
        for (long long ii = 0; ii < static_cast<long long>(g); ++ii) {
            const size_t i = static_cast<size_t>(ii);
            float fx = 0.0f, fy = 0.0f;
            for (size_t j = 0; j < g; ++j) {
                const float dx = low[2 * i] - low[2 * j], dy = low[2 * i + 1] - low[2 * j + 1];
                const float q = 1.0f / (1.0f + (dx * dx + dy * dy) / l2);
                // -d/dx of repulsion * L^2 / (1 + r^2 / L^2)
                const float s = 2.0f * m_params.repulsion * q * q;
                fx += s * dx;
                fy += s * dy;
            }
            m_force[2 * i] = fx;
            m_force[2 * i + 1] = fy;
        }
        for (auto [a, b] : model.edges) {
            const float dx = low[2 * b] - low[2 * a], dy = low[2 * b + 1] - low[2 * a + 1];
            const float dist = std::sqrt(dx * dx + dy * dy);
            if (dist <= 0.0f) continue;
            const float s = m_params.spring * (dist - len) / dist;
            m_force[2 * a] += s * dx;
            m_force[2 * a + 1] += s * dy;
            m_force[2 * b] -= s * dx;
            m_force[2 * b + 1] -= s * dy;
        }
        for (size_t i = 0; i < g; ++i) {
            if (lowLocked(model, i)) {
                m_velocity[2 * i] = m_velocity[2 * i + 1] = 0.0f;
                continue;
            }
            float vx = m_params.damping * m_velocity[2 * i] + m_params.timeStep * m_force[2 * i];
            float vy =
                m_params.damping * m_velocity[2 * i + 1] + m_params.timeStep * m_force[2 * i + 1];
            const float speed = std::sqrt(vx * vx + vy * vy);
            if (speed > maxMove) vx *= maxMove / speed, vy *= maxMove / speed;
            m_velocity[2 * i] = vx;
            m_velocity[2 * i + 1] = vy;
            model.low[2 * i] += vx;
            model.low[2 * i + 1] += vy;
        }
        ++m_iter;
        if (m_params.iterations > 0 && m_iter >= m_params.iterations) break;
    }
    ++model.lowVersion;
    return m_params.iterations == 0 || m_iter < m_params.iterations;
}

}  // namespace sepal
