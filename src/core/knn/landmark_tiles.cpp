#include "core/knn/landmark_tiles.h"

namespace sepal {

void LandmarkTiles::build(const float* landmarks, size_t count, size_t dims) {
    g = count;
    d = dims;
    gp = (g + kLandmarkBlock - 1) / kLandmarkBlock * kLandmarkBlock;
    values.assign(d * gp, 0.0f);
    for (size_t j = 0; j < g; ++j)
        for (size_t t = 0; t < d; ++t) values[t * gp + j] = landmarks[j * d + t];
}

}  // namespace sepal
