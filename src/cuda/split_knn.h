#pragma once
// Candidates of the exact k-NN graph from tensor cores: the dot-product form of each key,
// |a|^2 + |b|^2 - 2 a.b over rows centred on the column means, with a.b from three FP16 products
// of split operands (hi.hi + hi.lo + lo.hi, about 22 bits of each value, scaled by a power of two
// into FP16's range; m16n8k16 with single-precision sums), so that the error bound stays near
// single precision's and a query's candidates are few more than k. The caller re-ranks them
// exactly; the bound each query carries says which of them are proven complete. Euclidean,
// cosine and pearson (the last two as half the squared distance of unit rows); manhattan has no
// dot-product form.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/matrix.h"
#include "core/common/uninitialised.h"
#include "core/knn/knn_graph.h"
#include "core/knn/knn_part_layout.h"
#include "cuda/device_buffer.h"

namespace sepal::cuda {

/// Whether the split candidates take this metric and width (SEPAL_KNN_TENSOR=0 turns them
/// off, for comparisons).
bool splitKnnTakes(KnnMetric metric, size_t d);

/// The rows and per-row bounds the split candidates read, prepared once per build.
struct SplitKnnInput {
    size_t n = 0;                  ///< points
    int stride = 0;                ///< columns of a row: d padded to 16 (or to sumColumns)
    int sumColumns = 0;            ///< the kernel's partial sums the bounds hold for (0: one sum)
    float scale = 1;               ///< a power of two taking every value into FP16's range
    UnfilledFloats rows;           ///< n x stride: centred rows (euclidean) or unit rows
    std::vector<float> norm2;      ///< |row|^2 in single precision; infinity for unusable rows
    std::vector<double> ownNorm2;  ///< |row|^2 exactly (1 for unit rows: the key's own term)
    std::vector<double> error;     ///< bound on |approximate - exact| of any key of the row
    std::vector<float> margin;     ///< candidates kept beyond the k-th approximate key
    double keyScale = 1;           ///< exact key = keyScale x approximate key
    double relSlack = 0;           ///< the CPU's relative rounding of an exact key
    double absSlack = 0;           ///< the CPU's absolute rounding of an exact key
};

/// The split input of `points` for `metric` (unitRows: the unit rows of cosine and pearson, as
/// the difference-form kernel compares them); empty (n = 0) for values too wide or narrow to
/// scale into FP16's range. sumColumns > 0: the kernel restarts its sums every sumColumns
/// columns (wide_ranks.h), which narrows the error bound; 0: one sum over the row.
SplitKnnInput prepareSplitKnn(RowsView points, const KnnRowScales& scales, KnnMetric metric,
                              const std::vector<float>& unitRows, int sumColumns = 0);

/// A build's split rows on the device, as the kernels read them.
struct SplitKnnDevice {
    const float* rows = nullptr;        ///< n x stride split input rows
    const float4* fragments = nullptr;  ///< the rows as B fragments, tiles of kSplitRefTile
    const float* norm2 = nullptr;       ///< nPad squared norms (infinity past n)
    size_t nPad = 0;                    ///< n rounded up to whole tiles
    int stride = 0;                     ///< columns of a row
    float scale = 1;                    ///< the power of two of the fragments
};

/// A build's split rows on the current device, and the candidate kernel over them.
class SplitKnnCandidates {
  public:
    /// Uploads `in` and lays the references out as mma.sync B fragments.
    explicit SplitKnnCandidates(const SplitKnnInput& in);
    /// Takes `in` as laid out by `layout` (splitInLayout): from now on each block of queries
    /// scans its own part, then the parts its ball may reach, nearest first, until no query's
    /// threshold reaches the nearest left; queries and references are the layout's positions,
    /// and the candidates name the points (the layout's order).
    void useParts(const KnnPartLayout& layout);
    /// Whether the current device has the tensor cores the kernel needs (compute capability 8).
    static bool deviceTakes();
    /// For queries q0 .. q0 + qn - 1: their C (32 or 64) nearest by the approximate key,
    /// ascending (key, idx: qn x C; count: how many), and leftOut, the least exact key any point
    /// left out can have (infinity when every offered point was kept). With parts, q0 is a
    /// multiple of kKnnBlockQueries, and a padding position gets no candidates and -infinity.
    void candidates(int q0, int qn, int k, int C, float* key, uint32_t* idx, int* count,
                    double* leftOut) const;
    /// With parts: the reference tiles the candidates' blocks have scanned since useParts, added
    /// up over the blocks (0 without parts).
    uint64_t scannedTiles() const;
    /// The device arrays, for other kernels over the same fragments.
    SplitKnnDevice device() const;
    /// With parts: the point at each position of the layout (kNoPoint: padding), on the device.
    const uint32_t* order() const { return m_order.get(); }

  private:
    size_t m_nPad;
    int m_stride;
    float m_scale;
    double m_keyScale, m_relSlack, m_absSlack;
    DeviceBuffer<float> m_rows, m_norm2, m_margin;
    DeviceBuffer<double> m_ownNorm2, m_error;
    DeviceBuffer<float4> m_fragments;
    // The parts (useParts; m_parts = 0: every block scans every tile).
    int m_parts = 0;
    DeviceBuffer<uint32_t> m_order;
    DeviceBuffer<int> m_partTiles, m_blockPart;
    DeviceBuffer<float> m_partCentre, m_partRadius, m_blockCentre, m_blockRadius;
    DeviceBuffer<unsigned long long> m_scanned;
};

}  // namespace sepal::cuda
