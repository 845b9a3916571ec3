#pragma once
// Whole-data steps kept in host memory (core/train/whole_data_steps.h), for the tests that run
// without a GPU: the same sums as the CPU trainers (the CPU search, sequential double sums), so
// that a trainer stepping through them gives the CPU trainer's landmarks; it counts its calls,
// keeps the last neighbourhood it was given, and reports made-up device figures for each step
// (kFakeStep), as a device reports its own.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/knn/nearest_search.h"
#include "core/train/whole_data_steps.h"

namespace sepal::test {

/// The figures each fake step reports besides its cells: 2.5 ms, of it 0.5 ms scanning 3 cells,
/// 7 cells kept, a nearest pass that took 11 cells' lone candidates.
inline const WholeDataFigures kFakeStep{2.5, 0.5, 3, 7, 0, 1, 1, 11};

/// Every cell in memory, stepped on the CPU.
class FakeWholeDataSteps final : public WholeDataSteps {
  public:
    /// Copies the n x d cells.
    FakeWholeDataSteps(const float* points, size_t n, size_t d)
        : FakeWholeDataSteps(TrainingCells{points, n, d}) {}
    /// Copies the cells' rows (every one, or those listed).
    explicit FakeWholeDataSteps(const TrainingCells& cells)
        : m_n(cells.count()), m_d(cells.d), m_search(makeCpuNearestSearch()) {
        m_points.reserve(m_n * m_d);
        for (size_t i = 0; i < m_n; ++i) {
            const float* row = cells.points + (cells.rows ? (*cells.rows)[i] : i) * m_d;
            m_points.insert(m_points.end(), row, row + m_d);
        }
    }
    size_t count() const override { return m_n; }
    size_t dim() const override { return m_d; }
    std::string origin() const override { return "copied into host memory"; }
    /// Cell i's d values, as kept.
    const float* cell(size_t i) const { return m_points.data() + i * m_d; }
    WholeDataResult lloyd(const float* landmarks, size_t g) override {
        ++lloydCalls;
        return step(landmarks, g, nullptr);
    }
    WholeDataResult batchSom(const float* landmarks, size_t g, const float* weights) override {
        ++batchSomCalls;
        lastWeights.assign(weights, weights + g * g);
        return step(landmarks, g, weights);
    }
    WholeDataFigures figures() const override { return m_figures; }

    size_t lloydCalls = 0;           ///< Lloyd iterations asked for
    size_t batchSomCalls = 0;        ///< batch-SOM epochs asked for
    std::vector<float> lastWeights;  ///< the last epoch's g x g neighbourhood
    bool failNext = false;           ///< the next step throws, as a device out of memory would

  private:
    // weights null: k-means (each landmark to the mean of its own cells).
    WholeDataResult step(const float* landmarks, size_t g, const float* weights) {
        if (failNext) {
            failNext = false;
            throw std::runtime_error("out of memory (fake)");
        }
        std::vector<uint32_t> idx(m_n);
        std::vector<float> sq(m_n);
        if (m_n > 0)
            m_search->search(m_points.data(), m_n, landmarks, g, m_d, 1, idx.data(), sq.data());
        // Sums in point order, as the CPU trainers add them.
        std::vector<double> sums(g * m_d, 0.0), counts(g, 0.0);
        WholeDataResult r;
        for (size_t i = 0; i < m_n; ++i) {
            for (size_t t = 0; t < m_d; ++t) sums[idx[i] * m_d + t] += m_points[i * m_d + t];
            counts[idx[i]] += 1.0;
            r.inertia += sq[i];
        }
        r.landmarks.assign(landmarks, landmarks + g * m_d);
        m_figures += kFakeStep;
        m_figures.cells += m_n;
        for (size_t j = 0; j < g; ++j) {
            // The batch SOM's formula in finishEpoch's order; k-means weighs its own cells only.
            double den = 0.0;
            std::vector<double> num(m_d, 0.0);
            for (size_t c = 0; c < g; ++c) {
                if (counts[c] == 0.0) continue;
                const float h = weights ? weights[j * g + c] : (c == j ? 1.0f : 0.0f);
                if (h <= 0.0f) continue;
                den += h * counts[c];
                for (size_t t = 0; t < m_d; ++t) num[t] += h * sums[c * m_d + t];
            }
            if (den <= 0.0) continue;
            for (size_t t = 0; t < m_d; ++t)
                r.landmarks[j * m_d + t] = static_cast<float>(num[t] / den);
        }
        return r;
    }

    std::vector<float> m_points;
    WholeDataFigures m_figures;  // kFakeStep for every step so far
    size_t m_n, m_d;
    std::unique_ptr<NearestSearch> m_search;
};

}  // namespace sepal::test
