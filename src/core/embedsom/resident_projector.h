#pragma once
// A projector that keeps the points on its device and writes positions straight into device
// memory the caller owns (a vertex buffer mapped for the GPU): the desktop application's GPU leg
// talks to this, never to a particular backend.

#include <cstddef>
#include <string>

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
    /// Projects the resident points into hostOut (n x 2 floats on the host).
    virtual ProjectionReport projectToHost(const LandmarkModel& model, const EmbedParams& params,
                                           float* hostOut) = 0;
    /// What the last projection ran (a kernel name; empty before the first).
    virtual std::string lastKernel() const = 0;
};

}  // namespace sepal
