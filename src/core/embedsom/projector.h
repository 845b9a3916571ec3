#pragma once
// The Projector interface: EmbedSOM of many points through a landmark model (embedsom.md spec).

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/model/landmark_model.h"

namespace sepal {

/// EmbedSOM parameters, named and defaulted as in the EmbedSOM R package.
struct EmbedParams {
    int k = 0;            ///< neighbours; 0 means the default floor(1 + sqrt(g)); 4 <= k <= g
    float smooth = 0.0f;  ///< >= -3; larger values smooth more
    float adjust = 1.0f;  ///< >= 0; how much far-apart 2D landmarks are discounted
};

/// The k actually used for g landmarks (resolves the default); throws InputError when invalid.
int resolveK(const EmbedParams& params, size_t g);
/// Throws InputError naming the parameter and the allowed range when a parameter is invalid.
void validateParams(const EmbedParams& params, size_t g);

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
