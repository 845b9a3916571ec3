#include "core/train/landmark_moves.h"

#include <cmath>
#include <limits>

namespace sepal {

LandmarkMoves landmarkMoves(const float* before, const float* after, size_t g, size_t d) {
    LandmarkMoves m;
    m.moves.resize(g);
    for (size_t j = 0; j < g; ++j) {
        double sum = 0;
        for (size_t t = 0; t < d; ++t) {
            const double e = double(after[j * d + t]) - double(before[j * d + t]);
            sum += e * e;
        }
        // The double sum and its root are within a few units of 2^-53 of the real distance;
        // one float step up (and a relative 2^-30 before it) leaves the float above it.
        const double move = std::sqrt(sum) * (1.0 + 0x1p-30);
        float up = float(move);
        if (double(up) < move) up = std::nextafter(up, std::numeric_limits<float>::infinity());
        if (move > 0) up = std::nextafter(up, std::numeric_limits<float>::infinity());
        m.moves[j] = up;
    }
    for (size_t j = 0; j < g; ++j)
        if (m.moves[j] > m.moves[m.largestAt]) m.largestAt = j;
    if (g > 0) m.largest = m.moves[m.largestAt];
    for (size_t j = 0; j < g; ++j)
        if (j != m.largestAt && m.moves[j] > m.second) m.second = m.moves[j];
    return m;
}

}  // namespace sepal
