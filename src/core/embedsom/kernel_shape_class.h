#pragma once
// The shape class of a projection: what auto's measured choice of a CUDA kernel is made for, once
// per GPU, and remembered under (kernel_choice_cache.h). Plain C++: tested without a GPU.
//
// A kernel's speed relative to the others depends on:
//  - d, g and k: the work per point, and which kernels take the shape at all (kernel_limits.h);
//  - adjust, as 1, 0 or any other value: three code paths (the table projection's fast weight
//    for 1, none for 0, a power per pair otherwise); values other than 1 and 0 share a class;
//  - n, in two classes: from 2^16 to 2^18 points, and 2^18 or more, measured on 2^16 and 2^18
//    points. tensor+split's two partitions overlap only over enough chunks: it lost below about
//    2^18 points and won above on the H100 (GPU_NOTES.md), so one class would misjudge one side.
//    A third class from 2^20 points was tried and taken out: on the H200 it chose for the
//    benchmark's normal landmarks (1.5 % faster) what ran 5-23 % slower on landmarks among the
//    cells, as a user's are (GPU_NOTES.md, the twenty-fifth session).
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
/// From this many points on, one class (measured on this many).
constexpr size_t kMeasuredLargePoints = size_t(1) << 18;

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
