#pragma once
// The nearest landmark of a group of points, found inside the distance kernel (no row of
// distances is stored and read back), over every 32-column block of the tiles or over some of
// them: Lloyd's bounds (lloyd_assigner.h) skip the blocks that cannot hold the nearest.

#include <cstddef>
#include <cstdint>

#include "core/knn/landmark_tiles.h"

namespace sepal {

/// Which blocks of the tiles to compare, and which landmark each column stands for.
struct BlockSelection {
    const uint32_t* blocks = nullptr;       ///< blocks (of kLandmarkBlock columns); null: all
    size_t count = 0;                       ///< how many `blocks` lists
    const uint32_t* columnIndex = nullptr;  ///< landmark index of each column; null: the column
};

/// The nearest compared column of each of kPointGroup points: idx (its landmark index) and sq
/// (its squared distance, difference form). The smallest distance wins, NaN counting as
/// +infinity, and equal distances go to the lower landmark index, as selectNearest with k = 1
/// picks from groupDistances' rows. blockMin (null: not wanted) receives each listed block's
/// smallest distance per point, kPointGroup x count (x the number of blocks when all).
void groupNearestInBlocks(const float* const points[kPointGroup], const LandmarkTiles& tiles,
                          const BlockSelection& selection, uint32_t idx[kPointGroup],
                          float sq[kPointGroup], float* blockMin);

/// Whether groupNearestInBlocks has its AVX-512 pass on this CPU (else the portable one, several
/// times slower).
bool fastBlockKernel();

/// groupNearestInBlocks over every block: the trainers' winner search.
void groupNearest(const float* const points[kPointGroup], const LandmarkTiles& tiles,
                  uint32_t idx[kPointGroup], float sqdist[kPointGroup]);

}  // namespace sepal
