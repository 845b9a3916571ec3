#pragma once
// The UMAP-like polish's kernels (polish_kernels.cu): the cells' neighbours among their
// landmarks' cells and one epoch, each as the CPU computes them, bit for bit.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sepal::cuda {

/// What the neighbour search reads and writes (device pointers).
struct PolishNeighbourArgs {
    const float* points = nullptr;     ///< n x d
    const uint32_t* cells = nullptr;   ///< the usable cells listed by nearest landmark
    const uint64_t* offset = nullptr;  ///< g + 1: landmark u's list is [offset[u], offset[u + 1])
    const uint32_t* probe = nullptr;   ///< n x probes: each cell's nearest landmarks
    uint32_t* nbr = nullptr;           ///< n x k out
    float* sq = nullptr;               ///< n x k out
    size_t n = 0;                      ///< cells
    size_t listed = 0;                 ///< usable cells (the queries, in list order)
    int d = 0;                         ///< dimensions
    int probes = 0;                    ///< landmarks whose lists a cell searches
    int k = 0;                         ///< neighbours, at most kPolishMostNeighbours
};

/// Neighbours per cell the search keeps (a warp's lanes hold them).
constexpr int kPolishMostNeighbours = 32;
/// Dimensions the tiled search holds a query of in registers (more: one warp per query).
constexpr int kPolishTiledMostDims = 64;
/// Queries a block of the tiled search takes from one landmark's list.
constexpr int kPolishQueriesPerBlock = 128;

/// Fills nbr and sq for every listed cell (others keep what they hold): one warp per query.
void launchPolishNeighbours(const PolishNeighbourArgs& a, cudaStream_t stream);

/// The tiled search's work: each landmark's list searched by every query that probes it.
struct PolishTiledArgs {
    const float* points = nullptr;       ///< n x d
    const uint32_t* cells = nullptr;     ///< the usable cells listed by nearest landmark
    const uint64_t* offset = nullptr;    ///< g + 1: landmark u's list is [offset[u], offset[u + 1])
    const uint32_t* taskList = nullptr;  ///< per block: the landmark whose list it searches
    const uint64_t* taskFirst = nullptr;  ///< per block: its first query item
    const uint32_t* taskCount = nullptr;  ///< per block: its query items (<= queries per block)
    const uint32_t* itemQuery = nullptr;  ///< per item: the query cell
    const uint32_t* itemSlot = nullptr;   ///< per item: where its keys go (query x probes + p)
    uint64_t* keys = nullptr;  ///< per slot, k keys (squared distance's bits, index), ascending
    size_t tasks = 0;          ///< blocks
    int d = 0;                 ///< dimensions (<= kPolishTiledMostDims)
    int k = 0;                 ///< neighbours
};

/// Each item's k best keys among its landmark's list (the query itself left out).
void launchPolishTiledSearch(const PolishTiledArgs& a, cudaStream_t stream);

/// Merges each query's `probes` key lists (probes <= 8) into its k nearest: nbr and sq (n x k)
/// of the queries `queries` (the usable cells).
void launchPolishMergeKeys(const uint64_t* keys, const uint32_t* queries, size_t count, int probes,
                           int k, uint32_t* nbr, float* sq, cudaStream_t stream);

/// The graph's inputs and outputs (device pointers): UMAP's membership strengths of each
/// cell's neighbours, as core's polishGraph computes them.
struct PolishGraphArgs {
    const uint8_t* usable = nullptr;  ///< stride: cells with lists (the others have none)
    const uint32_t* nbr = nullptr;    ///< n x k, 0xffffffff past the found ones
    const float* sq = nullptr;        ///< n x k squared distances
    uint32_t* graphNbr = nullptr;     ///< k x stride out (a missing place: the cell itself)
    float* weight = nullptr;          ///< k x stride out
    float* weights = nullptr;         ///< stride out: each cell's sum of weights
    size_t n = 0;                     ///< cells
    size_t stride = 0;                ///< n padded to 8
    int k = 0;                        ///< places per cell (at most kPolishMostNeighbours)
    double target = 0;                ///< log2 of k (at least 1), the strengths' sum
};

/// Fills the graph from the neighbour lists.
void launchPolishGraph(const PolishGraphArgs& a, cudaStream_t stream);

/// One epoch's inputs (device pointers; the graph's places are r * stride + i).
struct PolishEpochArgs {
    const uint32_t* nbr = nullptr;    ///< k x stride
    const float* weight = nullptr;    ///< k x stride
    const float* weights = nullptr;   ///< stride
    const uint8_t* usable = nullptr;  ///< stride
    const uint32_t* keep = nullptr;   ///< the usable cells, where random ones are drawn
    const float* y = nullptr;         ///< stride x 2, this epoch's start
    float* next = nullptr;            ///< stride x 2 out
    size_t stride = 0;                ///< cells, padded to 8
    size_t kept = 0;                  ///< entries of keep
    int k = 0;                        ///< places per cell
    float a = 1, b = 1;               ///< UMAP's curve
    float rate = 0;                   ///< this epoch's step
    float repulsion = 0;              ///< the repulsion's weight
    int negativeSamples = 0;          ///< random cells a cell is pushed from (at most 8)
    uint64_t seed = 0;                ///< with the cell and the epoch: the random cells
    uint64_t epoch = 0;               ///< this epoch's number
};

/// Moves every cell from y to next as the CPU's vector path does.
void launchPolishEpoch(const PolishEpochArgs& a, cudaStream_t stream);

}  // namespace sepal::cuda
