#pragma once
// The shape class of a projection: what auto's measured choice of a CUDA kernel is made for, once
// per GPU, and remembered under (kernel_choice_cache.h). Plain C++: tested without a GPU.
//
// A kernel's speed relative to the others depends on:
//  - d, g and k: the work per point, and which kernels take the shape at all (kernel_limits.h);
//  - adjust, as 1, 0 or any other value: three code paths (the table projection's fast weight
//    for 1, none for 0, a power per pair otherwise); values other than 1 and 0 share a class;
//  - n, in three classes: from 2^16 to 2^18 points, from 2^18 to 2^20, and 2^20 or more,
//    measured on 2^16, 2^18 and 2^20 points. tensor+split's two partitions overlap only over
//    enough chunks: at d 64 g 1024 k 32 on the H200 it lost by 15 % on 2^18 points and came
//    within a few % on 2^20 (GPU_NOTES.md), so a class measured on 2^18 ruled it out for every
//    larger projection. Which of the two then wins depends on the data (where the landmarks
//    lie among the cells: split 3 % ahead on normal landmarks, 3-23 % behind on clustered and
//    crowded ones), which a class cannot say: auto times a class's close candidates again on
//    the caller's own cells (auto_kernel.h).
// Below 2^16 points a projection takes a fraction of a millisecond on any kernel that auto
// would weigh, less than a measurement costs: auto keeps its fixed rule there (no class).
// Not in the class: smooth (a constant of every kernel), the neighbour cache's subsets of rows
// (they are projected by the kernel chosen for the whole set), and the data themselves (the
// measurement draws clustered points, as cytometry data are).

#include <cstddef>
#include <optional>
#include <string>

namespace sepal {

/// Fewest points auto measures for: below, its fixed rule chooses.
constexpr size_t kMeasuredMinPoints = size_t(1) << 16;
/// From this many points, the middle class (measured on this many).
constexpr size_t kMeasuredLargePoints = size_t(1) << 18;
/// From this many points on, the largest class (measured on this many).
constexpr size_t kMeasuredHugePoints = size_t(1) << 20;

/// How adjust steers the kernels' code.
enum class AdjustClass { One, Zero, Other };

/// A projection's shape class (see the top of this file).
struct KernelShapeClass {
    size_t d = 0;                           ///< dimensions
    int g = 0;                              ///< landmarks
    int k = 0;                              ///< neighbours that place a point (resolved: never 0)
    AdjustClass adjust = AdjustClass::One;  ///< adjust's code path
    size_t points = 0;  ///< the class's points, and how many the measurement projects
};

/// The class of a projection of n points, or nothing when n is too few to measure for.
std::optional<KernelShapeClass> kernelShapeClass(size_t n, size_t d, int g, int k, float adjust);
/// The class as a key of the cache ("d64 g1024 k32 adjust1 n262144").
std::string kernelShapeKey(const KernelShapeClass& c);

}  // namespace sepal
