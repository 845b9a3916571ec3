#pragma once
// Choosing a backend by name: "reference", "cpu", "cuda" or "auto" (the GPU when it works).

#include <memory>
#include <string>
#include <vector>

#include "core/embedsom/projector.h"
#include "core/embedsom/resident_projector.h"
#include "core/knn/knn_graph.h"
#include "core/knn/nearest_search.h"
#include "core/metrics/quality.h"
#include "core/pipeline/polish_device.h"
#include "core/train/whole_data_steps.h"

namespace sepal {

/// A projector and the nearest-landmark search of the same backend, with why it was chosen.
struct Backend {
    std::unique_ptr<Projector> projector;    ///< EmbedSOM of many points
    std::unique_ptr<NearestSearch> search;   ///< k-NN for the trainers, same device
    std::unique_ptr<KnnGraphBuilder> graph;  ///< the k-NN graph of every point, same device
    std::unique_ptr<QualityScorer> quality;  ///< trustworthiness and k-NN preservation
    std::string name;                        ///< "reference", "cpu" or "cuda"
    std::string reason;                      ///< why: e.g. "auto: no CUDA device (error 100)"
    /// The same projector, device-resident, when the backend has a device (else nullptr):
    /// what the desktop application projects into its vertex buffer with.
    ResidentProjector* resident = nullptr;
    /// Builds trainer steps over every training cell kept on the backend's device (Lloyd's
    /// k-means, the batch SOM: Trainer::useWholeData); empty on the CPU backends and in builds
    /// without CUDA, whose trainers step over the points they are given.
    WholeDataStepsFactory wholeData{};
    /// The UMAP-like polish's neighbour search and epochs on the backend's device (the same
    /// picture as the CPU's AVX2 path, bit for bit: polish_device.h); null on the CPU backends.
    std::unique_ptr<PolishDevice> polish;
};

/// Backend-specific choices; each backend ignores what it does not know.
struct BackendOptions {
    std::string kernel = "auto";  ///< CUDA projection kernel by name ("auto" picks the fastest)
    /// CUDA device the backend works on (-1: the calling thread's current one, and the k-NN
    /// graph on every visible GPU). The device is the calling thread's from then on: use the
    /// backend from that thread.
    int device = -1;
    /// GPUs the k-NN graph spreads its batches of queries over (empty: `device` when it is set,
    /// else every visible one).
    std::vector<int> graphDevices;
};

/// Builds the backend called `name`; "cuda" in a build without CUDA throws InputError
/// ("built without CUDA"); "auto" picks CUDA when a device answers, else the CPU, and says why.
Backend makeBackend(const std::string& name, const BackendOptions& options = {});

/// The GPUs a CUDA backend can use (0 without CUDA, in this build or on this machine).
size_t gpuCount();

/// True when this build contains the CUDA backend.
bool builtWithCuda();

}  // namespace sepal
