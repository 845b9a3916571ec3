#pragma once
// The Student-t polish (polish.h, PolishKernel::StudentT): t-SNE's gradient descent, started from
// EmbedSOM's picture instead of a random or PCA one, so that no early exaggeration is needed. The
// affinities are perplexity-calibrated on each cell's data-space neighbours and symmetrised; the
// repulsion and its normaliser come from a grid (grid_repulsion.h), in O(n) a step, as
// interpolation-based t-SNE computes them.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace sepal {

/// How the Student-t polish runs.
struct TsnePolishParams {
    size_t iterations = 150;  ///< gradient steps over every cell
    float perplexity = 30;    ///< effective neighbours (at most a third of the listed ones)
    /// The repulsion grid's node spacing in t-SNE's units: on the pooled CytoNorm files 0.5
    /// and 0.75 keep as many neighbourhoods as the exact sums, 1 a little fewer.
    float spacing = 0.75f;
    /// The standard deviation along x the picture starts with: a compact start (3 rather than
    /// 10) keeps the grid small while t-SNE spreads it, and kept a little more.
    float startSpread = 3;
    /// Called after each iteration with the share done; false stops (y then unchanged).
    std::function<bool(double)> onProgress;
};

/// Moves the listed cells `keep` of y (x0 y0 x1 y1 ..., any frame: it is scaled to t-SNE's and
/// back) by t-SNE's gradient; other cells stay. nbr and sq: k places per cell of its nearest
/// neighbours' indices and squared distances, ascending, `none` past the found ones. The result
/// does not depend on the thread count. Throws InputError for a perplexity below 1 or a picture
/// that diverges. Returns false when params.onProgress stopped it.
bool tsnePolish(const std::vector<uint32_t>& nbr, const std::vector<float>& sq, size_t k,
                uint32_t none, const std::vector<uint32_t>& keep, float* y,
                const TsnePolishParams& params);

}  // namespace sepal
