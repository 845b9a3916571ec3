#pragma once
// The Projector interface: EmbedSOM of many points through a landmark model (embedsom.md spec).

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/embedsom/embed_params.h"
#include "core/model/landmark_model.h"

namespace sepal {

/// What a projection noticed: points a user should be told about.
struct ProjectionReport {
    size_t nonFinitePoints = 0;  ///< inputs with NaN or infinity (placed at their neighbours' mean)
    size_t degeneratePoints = 0;  ///< all neighbours equidistant or duplicated (fallback used)
};

/// Projects points to 2D through landmarks; implementations are interchangeable by name.
class Projector {
  public:
    virtual ~Projector() = default;
    /// Backend name ("reference", "cpu", "cuda", ...).
    virtual std::string name() const = 0;
    /// points: n x d row-major (transformed space); out: n x 2 row-major. Throws InputError.
    virtual ProjectionReport project(const float* points, size_t n, size_t d,
                                     const LandmarkModel& model, const EmbedParams& params,
                                     float* out) = 0;
    /// As project(), and where the projector finds them on the way, each point's nearest
    /// landmark in data space into nearest (n entries; ties to the lower index, as
    /// NearestSearch finds them; points with NaN or infinity left as they were), setting found.
    /// The default projects only (found false): the caller then searches.
    virtual ProjectionReport projectFindingNearest(const float* points, size_t n, size_t d,
                                                   const LandmarkModel& model,
                                                   const EmbedParams& params, float* out,
                                                   uint32_t* nearest, bool& found) {
        (void)nearest;
        found = false;
        return project(points, n, d, model, params, out);
    }
};

}  // namespace sepal
