#pragma once
// CudaProjector: EmbedSOM on the GPU with points kept on the device between projections.
// This header is free of CUDA and OpenGL headers so that the GUI can include it anywhere; device
// pointers are plain `float*` (for an OpenGL vertex buffer: map it through CUDA-GL interop and
// pass the mapped pointer to projectToDevice).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/embedsom/kernel_choice.h"
#include "core/embedsom/projector.h"
#include "core/embedsom/resident_projector.h"

namespace sepal::cuda {

/// Wall-clock phases of the last projection on the device, in milliseconds (CUDA events).
struct PhaseTimes {
    /// k-NN (split kernels only; 0 for fused kernels); for tensor+split, the k-NN partition's
    /// time from its first chunk to its last
    float knnMs = 0;
    /// projection (split kernels), or the whole fused kernel; for tensor+split, the rest of
    /// the total
    float projectMs = 0;
    float totalMs = 0;  ///< everything from the first launch to the last (a range: its chunks')
    /// Tensor k-NN kernels only: exact distances computed per point (its candidates), and points
    /// that scanned every landmark exactly (the tensor and resident k-NN: more candidates than
    /// they keep; every one: beyond FP16's or TF32's reach, or an overflowed bound).
    double candidatesPerPoint = 0;
    unsigned long long exactScans = 0;
    /// Table and list projections: the ill-conditioned cells, for the reference's solve (those
    /// past the queue's capacity are solved where they were met).
    unsigned long long deferredCells = 0;
    /// Table projection: the cells queued for the exact forms of D (crowded landmarks' pairs;
    /// past the queue's room they were placed inline and are counted too).
    unsigned long long exactFormCells = 0;
};

/// EmbedSOM on the GPU. Landmarks and per-pair constants are uploaded only when the model's
/// content changes; points stay on the device after setPoints().
class CudaProjector : public Projector, public ResidentProjector {
  public:
    /// kernel: "auto" or a name from kernelRegistry() (kernel_registry.h); throws InputError
    /// for any other. Bad parameters, shapes and kernels throw sepal::InputError before any CUDA
    /// work; failures of the CUDA runtime throw sepal::cuda::CudaError.
    explicit CudaProjector(const std::string& kernel = "auto");
    ~CudaProjector() override;
    CudaProjector(const CudaProjector&) = delete;
    CudaProjector& operator=(const CudaProjector&) = delete;

    /// "cuda".
    std::string name() const override;
    /// points: n x d row-major on the host; out: n x 2 on the host. Uses the device-resident
    /// points when `points` is the pointer last given to setPoints() with the same n and d;
    /// otherwise streams the points through the GPU in chunks (pinned buffers, async copies).
    ProjectionReport project(const float* points, size_t n, size_t d, const LandmarkModel& model,
                             const EmbedParams& params, float* out) override;
    /// As project(), and each point's nearest landmark from the k-NN's lists when the kernel
    /// keeps lists (every kernel but the one-pass ones) and the points are streamed.
    ProjectionReport projectFindingNearest(const float* points, size_t n, size_t d,
                                           const LandmarkModel& model, const EmbedParams& params,
                                           float* out, uint32_t* nearest, bool& found) override;

    /// Uploads points (n x d, host, row-major) and keeps them on the device until the next call;
    /// call again whenever the data change (the caller owns the data's identity).
    void setPoints(const float* host, size_t n, size_t d) override;
    /// Forgets the device-resident points (frees their memory).
    void clearPoints();
    /// Number of device-resident points (0 when none).
    size_t residentCount() const;
    /// The resident points on the device (n rows of paddedDim(d) floats, zeros beyond d) when
    /// they were uploaded from `host` with the same n and d, else null: another computation on
    /// this device copies them from there instead of uploading the host's again. The pointer
    /// alone says nothing of values changed in place since: the caller checks what it relies on.
    const float* residentRows(const float* host, size_t n, size_t d) const;

    /// Projects the resident points into deviceOut (n x 2 floats in device memory owned by the
    /// caller, e.g. a mapped OpenGL buffer); returns after the result is complete.
    ProjectionReport projectToDevice(const LandmarkModel& model, const EmbedParams& params,
                                     float* deviceOut) override;
    /// Projects the resident cells [begin, begin + count) into their rows of deviceOut (n x 2
    /// floats); the other rows stay as they were. Bypasses the neighbour cache; a long range
    /// goes in chunks, so that its k-NN lists stay within a bounded size.
    ProjectionReport projectRangeToDevice(const LandmarkModel& model, const EmbedParams& params,
                                          size_t begin, size_t count, float* deviceOut) override;
    /// The buffer projectToHost() and the neighbour cache project into (n x 2 floats).
    float* ownPositions() override;
    /// Projects the resident points into hostOut (n x 2 floats on the host).
    ProjectionReport projectToHost(const LandmarkModel& model, const EmbedParams& params,
                                   float* hostOut) override;
    /// Runs only the k-NN phase of the chosen kernel on the resident points (for benchmarks).
    void knnOnly(const LandmarkModel& model, const EmbedParams& params);

    /// The kernel that the last projection ran ("tensor", "fused", ...; empty before the first);
    /// when auto chose it, how: "tensor+parts (auto: measured)" ("cached": measured before on
    /// this GPU; "own-cells": a close call timed again on this process's cells; "rule": its
    /// fixed rule); through the neighbour cache, the kernel whose phases it ran and ", cached
    /// lists".
    std::string lastKernel() const override;
    /// The kernel that the last projection ran, its name alone ("" before the first).
    std::string lastKernelName() const;
    /// How auto made its last choice (auto_kernel.h); empty when a kernel was named or before
    /// the first projection.
    AutoChoice lastAutoChoice() const;
    /// Turns the device-side neighbour cache on or off (DeviceListCache; off by default). On, the
    /// resident projections keep the lists of a two-phase kernel's tensor-core k-NN (the chosen
    /// kernel's, else tensor+parts'); while the data-space landmarks and k stay, only cells
    /// listing a landmark whose 2D position changed are projected again. Its memory is bounded by
    /// SEPAL_NEIGHBOUR_CACHE_MB (0: off) or the device's free memory; beyond that, every
    /// projection is a full one and cacheState() says why.
    void keepNeighbourLists(bool on) override;
    /// Device bytes of the kept lists and index, and why none are kept.
    std::pair<size_t, std::string> cacheState() const override;
    /// Cells the last resident projection computed.
    size_t lastProjected() const override;
    /// The neighbour cache's limit in bytes (tests: a small one forces the full recompute).
    void setNeighbourCacheLimit(size_t bytes);
    /// Points (padded rows, and the unpadded upload while it lasts), positions and the queue of
    /// cells with NaN or infinity: n x (stride [+ d] + 3) floats.
    size_t residentBytes(size_t n, size_t d) const override;
    /// The device's free memory, plus the resident points, positions and neighbour lists held.
    size_t availableBytes() const override;
    /// Why tensor+split ran its kernels one after the other, as tensor+parts (the driver has no
    /// green contexts, or the GPU is too small to split); empty otherwise.
    std::string splitUnavailable() const;
    /// Cells per chunk of the streamed path and of a range (0: their own choice; benchmarks
    /// compare sizes, tests make ranges of several chunks).
    void setStreamChunk(size_t cells);
    /// Phase times of the last projection (recorded only after enableTiming(true)).
    PhaseTimes lastTimes() const;
    /// Records CUDA events around the phases (a little overhead; for benchmarks).
    void enableTiming(bool on) override;
    /// The last projection's time on the device, from its first event to its last.
    double lastDeviceMs() const override;

  private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace sepal::cuda
