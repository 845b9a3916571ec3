#pragma once
// A projector that keeps the points on its device and writes positions straight into device
// memory the caller owns (a vertex buffer mapped for the GPU): the desktop application's GPU leg
// talks to this, never to a particular backend.

#include <cstddef>
#include <string>
#include <utility>

#include "core/embedsom/projector.h"

namespace sepal {

/// Device-resident projection; provided by backends that have a device (see Backend::resident).
class ResidentProjector {
  public:
    virtual ~ResidentProjector() = default;
    /// Uploads points (n x d, host, row-major) and keeps them until the next call.
    virtual void setPoints(const float* host, size_t n, size_t d) = 0;
    /// Projects the resident points into deviceOut (n x 2 floats in device memory). Throws
    /// InputError for bad parameters (nothing is launched) and std::runtime_error for device
    /// failures.
    virtual ProjectionReport projectToDevice(const LandmarkModel& model, const EmbedParams& params,
                                             float* deviceOut) = 0;
    /// Projects only the resident cells [begin, begin + count) into their rows of deviceOut (n
    /// x 2 floats in device memory), leaving the other rows as they were: a projection of every
    /// cell spread over several calls. Throws InputError when the range passes the resident
    /// cells, and as projectToDevice otherwise.
    virtual ProjectionReport projectRangeToDevice(const LandmarkModel& model,
                                                  const EmbedParams& params, size_t begin,
                                                  size_t count, float* deviceOut) = 0;
    /// Device memory for the resident points' positions (n x 2 floats) that the projector owns,
    /// valid until the points change or are cleared: projecting into it spares a copy, and a
    /// picture drawn on the device can read it.
    virtual float* ownPositions() = 0;
    /// Projects the resident points into hostOut (n x 2 floats on the host).
    virtual ProjectionReport projectToHost(const LandmarkModel& model, const EmbedParams& params,
                                           float* hostOut) = 0;
    /// What the last projection ran (a kernel name; empty before the first).
    virtual std::string lastKernel() const = 0;
    /// Keeps each cell's nearest landmarks between projections while the data-space landmarks
    /// stay, so that a change of 2D positions alone (a drag, a layout) re-projects only the
    /// cells it touches, to the same positions. Off by default: one-shot projections gain
    /// nothing from it.
    virtual void keepNeighbourLists(bool on) = 0;
    /// Bytes the kept lists take, and why none are kept ("" while they are or when not asked).
    virtual std::pair<size_t, std::string> cacheState() const = 0;
    /// Cells the last projection computed: all of them, or those a change touched.
    virtual size_t lastProjected() const = 0;
    /// Device bytes n points of d dimensions need to be resident and projected (at the peak of
    /// their upload), the neighbour lists left out: they are kept only where they fit.
    virtual size_t residentBytes(size_t n, size_t d) const = 0;
    /// Device bytes new points could take now: the free memory and what the projector holds.
    virtual size_t availableBytes() const = 0;
    /// Records device events around each projection (a little overhead; for benchmarks).
    virtual void enableTiming(bool on) = 0;
    /// Milliseconds the last projection's work took on the device (0 without enableTiming):
    /// against the call's time on the host clock, it tells waiting from working.
    virtual double lastDeviceMs() const = 0;
};

}  // namespace sepal
