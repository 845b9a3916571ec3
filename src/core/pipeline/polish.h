#pragma once
// An optional polish of EmbedSOM's picture: a few epochs of a UMAP-like neighbour embedding of
// every cell, or t-SNE's gradient (tsne_polish.h), started from its EmbedSOM position, on the
// cells' nearest neighbours in data space (found among the cells of their nearest landmarks).
// Polished cells no longer follow the landmarks: a drag or a model applied to other files gives
// EmbedSOM's positions again.

#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/common/matrix.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_model.h"

namespace sepal {

class PolishDevice;  // core/pipeline/polish_device.h

/// The shape of the polish: which neighbour embedding it runs.
enum class PolishKernel {
    Umap,      ///< UMAP's curve and sampled repulsion: a few epochs keep EmbedSOM's spacing
    StudentT,  ///< t-SNE's Student-t kernel and exact-in-the-limit repulsion (tsne_polish.h)
};

/// Seconds the polish's phases took (for benchmarks).
struct PolishTimes {
    double search = 0;      ///< each cell's nearest landmarks
    double neighbours = 0;  ///< listing the cells by landmark and the neighbour search
    double graph = 0;       ///< UMAP's membership strengths (or t-SNE's affinities and steps)
    double epochs = 0;      ///< the epochs (t-SNE-like: included in graph)
};

/// How the polish runs.
struct PolishParams {
    PolishKernel kernel = PolishKernel::Umap;  ///< UMAP-like or t-SNE-like
    size_t epochs = 0;      ///< passes over every cell (0: no polish; UMAP-like 10 to 30 do well,
                            ///< t-SNE-like 150 to 300)
    float perplexity = 30;  ///< t-SNE-like: effective neighbours (3 x as many are found)
    size_t k = 15;          ///< UMAP-like: neighbours of each cell in data space
    size_t probes = 2;      ///< nearest landmarks whose cells are a cell's candidates
    size_t negativeSamples = 5;  ///< random cells each cell is pushed from, per epoch (<= 8)
    float learningRate = 0.2f;   ///< the first epoch's step (falls linearly to 0)
    float repulsion = 0.05f;     ///< weight of the repulsion against UMAP's
    float minDist = 0.1f;        ///< as UMAP's: how tightly cells may pack
    uint64_t seed = 1;           ///< the negative samples
    /// Called after each epoch with the share done (0 once the neighbours are found); false
    /// stops the polish and leaves the positions as they were (the app's Cancel). May be empty.
    std::function<bool(double)> onProgress;
    /// Where the UMAP-like polish's neighbour search, graph and epochs run (the backend's
    /// device: the CPU's picture bit for bit where the CPU takes its AVX2 path, polish_device.h);
    /// null: the CPU. The t-SNE-like polish iterates on the CPU (its neighbour lists come from
    /// the device when it takes that many: a perplexity of 10 or less).
    PolishDevice* device = nullptr;
    /// Where the phases' seconds go (may be null).
    PolishTimes* times = nullptr;
};

/// Moves the cells' 2D positions (xy: n x 2, EmbedSOM's) by `params.epochs` epochs of a
/// UMAP-like gradient (attraction along each cell's k data-space neighbours, repulsion from
/// random cells), every cell from the same positions in an epoch, so that the result does not
/// depend on the thread count. points: n x d, the model's space; cells with a missing value
/// keep their position and are no one's neighbour. Throws InputError for impossible settings.
/// Returns false when params.onProgress stopped it (xy then unchanged).
bool polishPositions(const Matrix& points, const LandmarkModel& model, float* xy,
                     const PolishParams& params, NearestSearch& search);

}  // namespace sepal
