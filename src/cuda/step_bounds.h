#pragma once
// The training step's bounds (Hamerly's k-means bounds): per cell, an upper bound on its distance
// to its nearest landmark and a lower bound on its distance to every other one. After the
// landmarks move (core/train/landmark_moves.h), a cell whose upper bound plus its landmark's
// move stays below its lower bound less the largest other move keeps its landmark without a
// search; for the others the distance to the landmark's new place may be measured (Hamerly's
// second test, KeepOrListArgs::points: the grown upper bound is often far above it), and those
// it does not keep either are listed and searched again. Device pointers; launches are checked and
// asynchronous.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sepal::cuda {

/// What the keep-or-list pass reads and writes (device pointers, n cells).
struct KeepOrListArgs {
    size_t n = 0;                ///< cells
    int g = 0;                   ///< landmarks
    uint32_t* assign = nullptr;  ///< n: each cell's landmark of the last step
    /// n: squared distance to it; set to -1 for a cell kept by its bounds alone (not measured:
    /// the sums passes measure it, LandmarkSumArgs::landmarks), to the measured distance for one
    /// kept by its tightened bound.
    float* dist = nullptr;
    /// n x stride, may be null: the cells' rows, for Hamerly's second test (a cell whose bounds
    /// fail has its distance to its landmark's new place measured, and keeps the landmark when
    /// that distance stays below its lower bound); null: no second test.
    const float* points = nullptr;
    const float* landmarks = nullptr;  ///< g x stride: the step's landmarks (with points)
    int stride = 0;                    ///< floats a row, a multiple of 4 (with points)
    float* upper = nullptr;            ///< n: distance to its landmark at most this (updated)
    float* lower = nullptr;            ///< n: distance to every other one at least this (updated)
    const float* moves = nullptr;      ///< g: each landmark's move, rounded up
    float largest = 0;                 ///< the largest move
    float second = 0;                  ///< the largest move of a landmark other than largestAt
    int largestAt = 0;                 ///< the landmark of the largest move
    uint32_t* list = nullptr;          ///< n: the cells to search again (for NearestArgs::cells)
    /// [0] += the cells to search again, [1] += the cells kept (neither counts a skipped
    /// non-finite cell).
    unsigned long long* counts = nullptr;
};

/// Keeps each cell's landmark where its bounds allow (updating them), lists the rest; a cell
/// skipped for a non-finite coordinate (lower bound +infinity) is neither.
void launchKeepOrList(const KeepOrListArgs& args, cudaStream_t stream);

}  // namespace sepal::cuda
