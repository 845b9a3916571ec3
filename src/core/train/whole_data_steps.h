#pragma once
// One trainer step over every training cell, wherever the cells are kept: a Lloyd iteration or a
// batch-SOM epoch. The CPU trainers step over the TrainingData they are given (a subsample in the
// app); a backend with a device keeps every cell there and offers these steps instead (the CUDA
// backend: Backend::wholeData), so that the trainers need not know where the cells live.

#include <cassert>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sepal {

/// What one whole-data step gives a trainer.
struct WholeDataResult {
    /// g x d: the new landmarks, every row (the trainer keeps its locked ones); a landmark with
    /// no weight keeps its place.
    std::vector<float> landmarks;
    /// Sum of squared distances to the nearest landmark, before the move; NaN where the steps do
    /// not measure it (the CUDA steps leave out the cells whose bounds kept their landmark and
    /// those whose lone candidate the nearest pass took unmeasured).
    double inertia = 0;
    size_t skipped = 0;  ///< cells left out for a non-finite coordinate
};

/// What the device did in whole-data steps, for the app's figures (--bench-frames): summed over
/// the steps.
struct WholeDataFigures {
    double deviceMs = 0;     ///< the step on the device: the search, the sums, the update
    double exactScanMs = 0;  ///< of it: the exact scan of the cells the fast search left open
    size_t exactScans = 0;   ///< cells scanned exactly
    size_t keptCells = 0;    ///< cells whose bounds kept their landmark without a search
    size_t cells = 0;        ///< cells the steps ran over (each step's, summed)
    size_t steps = 0;        ///< steps summed here
    /// Steps whose search was a nearest-landmark pass (the CUDA step's; others took a k-NN).
    size_t nearestSteps = 0;
    size_t loneCells = 0;  ///< cells that pass settled with one candidate, left unmeasured
    /// The share of the nearest pass's products each step computed, summed over the steps (1 a
    /// step that searched every landmark; less where its tiles left groups out).
    double productShare = 0;

    /// Adds another step's (or steps') figures.
    WholeDataFigures& operator+=(const WholeDataFigures& o) {
        deviceMs += o.deviceMs;
        exactScanMs += o.exactScanMs;
        exactScans += o.exactScans;
        keptCells += o.keptCells;
        cells += o.cells;
        steps += o.steps;
        nearestSteps += o.nearestSteps;
        loneCells += o.loneCells;
        productShare += o.productShare;
        return *this;
    }
    /// The figures of the steps since `earlier`, an earlier total of the same steps.
    WholeDataFigures since(const WholeDataFigures& earlier) const {
        assert(earlier.steps <= steps && earlier.cells <= cells);  // not other steps' figures
        return {deviceMs - earlier.deviceMs,
                exactScanMs - earlier.exactScanMs,
                exactScans - earlier.exactScans,
                keptCells - earlier.keptCells,
                cells - earlier.cells,
                steps - earlier.steps,
                nearestSteps - earlier.nearestSteps,
                loneCells - earlier.loneCells,
                productShare - earlier.productShare};
    }
};

/// One trainer step over every training cell, wherever the cells are kept.
class WholeDataSteps {
  public:
    virtual ~WholeDataSteps() = default;
    /// The number of cells a step runs over.
    virtual size_t count() const = 0;
    /// Their dimensions d.
    virtual size_t dim() const = 0;
    /// One Lloyd iteration: each landmark (g x d, finite) to the mean of its nearest cells.
    virtual WholeDataResult lloyd(const float* landmarks, size_t g) = 0;
    /// One batch-SOM epoch: landmark j to sum_c w[j g + c] S_c / sum_c w[j g + c] n_c, with S_c
    /// and n_c the sum and count of the cells nearest to landmark c; `weights` is g x g, and a
    /// weight <= 0 leaves that winner out.
    virtual WholeDataResult batchSom(const float* landmarks, size_t g, const float* weights) = 0;
    /// The figures of every step so far (steps 0 where the steps measure none).
    virtual WholeDataFigures figures() const { return {}; }
    /// Where the steps took their cells from, for the log ("uploaded from the host", "copied
    /// from the projection's cells on the device"; empty where there is nothing to say).
    virtual std::string origin() const { return {}; }
};

/// The cells whole-data steps train on: every row of an n x d matrix on the host, or the rows
/// listed (those inside the gates).
struct TrainingCells {
    const float* points = nullptr;              ///< n x d, row-major, on the host
    size_t n = 0;                               ///< rows of `points`
    size_t d = 0;                               ///< columns of `points`
    const std::vector<size_t>* rows = nullptr;  ///< rows to train on, each < n (null: all)
    /// The caller vouches that the backend's resident projector holds these n x d values as
    /// they are now (it took this version of the data): the steps may copy them from there.
    bool resident = false;

    /// The number of cells trained on.
    size_t count() const { return rows ? rows->size() : n; }
};

/// Builds the whole-data steps over the cells (copied where the steps keep them); throws when
/// they cannot be kept (no room on the device, ...).
using WholeDataStepsFactory =
    std::function<std::unique_ptr<WholeDataSteps>(const TrainingCells& cells)>;

}  // namespace sepal
