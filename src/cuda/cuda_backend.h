#pragma once
// The CUDA backend's entry points for src/backend (plain C++: no CUDA or OpenGL headers).

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

namespace sepal::cuda {

/// True when a CUDA device answers and runs Sepal's kernels; `why` (optional) gets the device
/// name on success, or the reason it cannot be used ("no CUDA device: ...").
bool deviceAvailable(std::string* why);

/// How many CUDA devices this process sees (0 when none answers).
int deviceCount();
/// Makes `device` the calling thread's CUDA device; throws InputError when it cannot be used.
void useDevice(int device);

/// A CUDA Projector (a CudaProjector) using `kernel`: one of kernelNames(); throws InputError.
std::unique_ptr<Projector> makeCudaProjector(const std::string& kernel);

/// The device-resident side of a projector made by makeCudaProjector (nullptr for others).
ResidentProjector* residentOf(Projector& projector);

/// The k-NN of the trainers on the GPU: the fused kernel's k-NN phase (landmarks in shared
/// memory, register top-k), or with "tensor" (or "resident", "parts") that tensor-core k-NN
/// where it applies.
std::unique_ptr<NearestSearch> makeCudaNearestSearch(const std::string& kernel = "fused");

/// The exact k-NN graph of every point on the GPUs `devices` (empty: every visible one), batches
/// of `queriesPerBatch` queries (0: 2^18) dealt to them in turn; knnGraph's graph on any number.
/// A whole euclidean graph of at least `partsFromPoints` points (0: 2^18, or
/// SEPAL_KNN_PARTS_FROM) gathers them into k-means parts first, so that queries leave out the
/// parts they cannot reach (the same graph, faster on clustered data).
std::unique_ptr<KnnGraphBuilder> makeCudaKnnGraphBuilder(std::vector<int> devices = {},
                                                         size_t queriesPerBatch = 0,
                                                         size_t partsFromPoints = 0);

/// Trustworthiness and k-NN preservation on the GPU (scoreEmbedding's figures).
std::unique_ptr<QualityScorer> makeCudaQualityScorer();

/// Lloyd iterations and batch-SOM epochs over the cells kept on the device (a TrainingStep,
/// training_step.h): copied there from `keeper` (a projector of makeCudaProjector) where the
/// caller vouches that it holds them (TrainingCells::resident), it took them from the same
/// pointer, n and d, on this device, and 64 sampled rows agree; else uploaded from the host.
/// Throws CudaError (out of memory, ...).
std::unique_ptr<WholeDataSteps> makeCudaWholeDataSteps(const TrainingCells& cells,
                                                       const Projector* keeper = nullptr);

/// The UMAP-like polish's neighbour search, graph and epochs on the calling thread's device
/// (the CPU's AVX2 path's results bit for bit: polish_device.h).
std::unique_ptr<PolishDevice> makeCudaPolishDevice();

/// Kernel names accepted by makeCudaProjector: "auto", then kernelRegistry()'s in its order.
std::vector<std::string> kernelNames();

}  // namespace sepal::cuda
