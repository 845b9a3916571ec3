// Core's WholeDataSteps over a TrainingStep: the trainers' whole-data iterations and epochs run
// on the device, where every training cell stays between steps.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_error.h"
#include "cuda/training_step.h"

namespace sepal::cuda {
namespace {

WholeDataResult resultOf(StepResult&& r) {
    WholeDataResult out;
    out.landmarks = std::move(r.landmarks);
    out.inertia = r.inertia;
    out.skipped = r.skipped;
    return out;
}

/// The steps of a TrainingStep; the neighbourhood goes up only when it changed.
class CudaWholeDataSteps final : public WholeDataSteps {
  public:
    CudaWholeDataSteps(const float* points, size_t n, size_t d) : m_step(points, n, d) {
        m_step.measureInertia(false);  // the trainers read the landmarks only
        SEPAL_CUDA_CHECK(cudaGetDevice(&m_device));
    }
    size_t count() const override { return m_step.count(); }
    size_t dim() const override { return m_step.dim(); }
    WholeDataResult lloyd(const float* landmarks, size_t g) override {
        SEPAL_CUDA_CHECK(cudaSetDevice(m_device));  // the app may step from a worker thread
        WholeDataResult r = resultOf(m_step.stepKmeans(landmarks, g));
        addFigures();
        return r;
    }
    WholeDataResult batchSom(const float* landmarks, size_t g, const float* weights) override {
        SEPAL_CUDA_CHECK(cudaSetDevice(m_device));  // the app may step from a worker thread
        // A held radius (or the last epochs at radius 0) gives the same g x g weights step after
        // step: comparing them costs less than copying them to the device again.
        if (m_weights.size() != g * g || !std::equal(m_weights.begin(), m_weights.end(), weights)) {
            m_weights.clear();  // until the device holds the new ones
            m_step.setNeighbourhood(weights, g);
            m_weights.assign(weights, weights + g * g);
        }
        WholeDataResult r = resultOf(m_step.stepBatchSom(landmarks, g));
        addFigures();
        return r;
    }
    WholeDataFigures figures() const override { return m_figures; }

  private:
    /// The step that just ran, into the totals.
    void addFigures() {
        const StepTimes t = m_step.lastTimes();
        m_figures.deviceMs += t.assignMs + t.accumulateMs + t.smoothMs;
        m_figures.exactScanMs += t.exactScanMs;
        m_figures.exactScans += m_step.lastExactScans();
        m_figures.keptCells += m_step.lastKeptCells();
        m_figures.nearestSteps += m_step.lastKernel() == "nearest";
        m_figures.loneCells += m_step.lastLoneCells();
        m_figures.cells += m_step.count();
        ++m_figures.steps;
    }

    TrainingStep m_step;
    int m_device = 0;              // the device that holds the cells
    std::vector<float> m_weights;  // the neighbourhood on the device (empty: none yet)
    WholeDataFigures m_figures;    // every step's, summed
};

}  // namespace

std::unique_ptr<WholeDataSteps> makeCudaWholeDataSteps(const float* points, size_t n, size_t d) {
    return std::make_unique<CudaWholeDataSteps>(points, n, d);
}

}  // namespace sepal::cuda
