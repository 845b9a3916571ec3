// Core's WholeDataSteps over a TrainingStep: the trainers' whole-data iterations and epochs run
// on the device, where every training cell stays between steps. Where the app's projector
// already keeps the same cells on the device, they are copied from there: uploading 10^8 cells
// from the host took about 2 s, a frozen frame when training starts or the gates change.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_error.h"
#include "cuda/cuda_projector.h"
#include "cuda/embedsom_kernels.h"
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
    CudaWholeDataSteps(const TrainingCells& cells, const float* deviceRows, std::string origin)
        : m_step(cells, deviceRows), m_origin(std::move(origin)) {
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
    std::string origin() const override { return m_origin; }

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
        m_figures.productShare += m_step.lastPrunedShare();
        m_figures.cells += m_step.count();
        ++m_figures.steps;
    }

    TrainingStep m_step;
    std::string m_origin;          // where the cells came from, for the log
    int m_device = 0;              // the device that holds the cells
    std::vector<float> m_weights;  // the neighbourhood on the device (empty: none yet)
    WholeDataFigures m_figures;    // every step's, summed
};

/// True when `device` memory lies on the calling thread's device (a gather there reads it).
bool onCurrentDevice(const void* device) {
    int current = 0;
    cudaPointerAttributes a{};
    SEPAL_CUDA_CHECK(cudaGetDevice(&current));
    SEPAL_CUDA_CHECK(cudaPointerGetAttributes(&a, device));
    return a.type == cudaMemoryTypeDevice && a.device == current;
}

/// True when the device rows (cells.n rows of `stride` floats) hold the host's values at 64
/// rows spread over them, bit for bit: a last guard under the caller's word
/// (TrainingCells::resident) that would catch most, not all, values changed since the upload.
bool sameRows(const float* deviceRows, int stride, const TrainingCells& cells) {
    constexpr size_t kSamples = 64;
    const size_t samples = std::min(cells.n, kSamples);
    std::vector<float> row(cells.d);
    for (size_t k = 0; k < samples; ++k) {
        const size_t r = samples == 1 ? 0 : k * (cells.n - 1) / (samples - 1);
        SEPAL_CUDA_CHECK(cudaMemcpy(row.data(), deviceRows + r * size_t(stride),
                                    cells.d * sizeof(float), cudaMemcpyDefault));
        if (std::memcmp(row.data(), cells.points + r * cells.d, cells.d * sizeof(float)) != 0)
            return false;
    }
    return true;
}

}  // namespace

std::unique_ptr<WholeDataSteps> makeCudaWholeDataSteps(const TrainingCells& cells,
                                                       const Projector* keeper) {
    const auto* projector = dynamic_cast<const CudaProjector*>(keeper);
    const float* rows = cells.resident && projector
                            ? projector->residentRows(cells.points, cells.n, cells.d)
                            : nullptr;
    const bool here = rows && onCurrentDevice(rows);
    if (here && sameRows(rows, paddedDim(cells.d), cells))
        return std::make_unique<CudaWholeDataSteps>(
            cells, rows, "copied from the projection's cells on the device");
    return std::make_unique<CudaWholeDataSteps>(
        cells, nullptr,
        !rows   ? "uploaded from the host"
        : !here ? "uploaded from the host: the projection's cells lie on another GPU"
                : "uploaded from the host: the projection's cells on the device are not these");
}

}  // namespace sepal::cuda
