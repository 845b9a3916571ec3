#pragma once
// Kernels of the neighbour cache on the device (DeviceListCache): the index landmark -> cells
// that list it among their topn, the gathering of the cells a change touches, and a count of
// flags. All pointers are device pointers; launches are checked and asynchronous.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sepal::cuda {

/// The cells' lists as the k-NN phases write them: n x kOut, a list whose first distance is
/// negative belongs to a cell with NaN or infinity (never indexed).
struct ListView {
    const uint32_t* idx = nullptr;  ///< n x kOut landmark indices, nearest first
    const float* dist = nullptr;    ///< n x kOut squared distances
    size_t n = 0;                   ///< cells
    int kOut = 0;                   ///< entries per list
    int topn = 0;                   ///< entries that place a cell (indexed)
};

/// counts[j] += the cells listing landmark j among their topn (counts: g, zeroed by the caller).
void launchCountListed(const ListView& lists, int g, uint32_t* counts, cudaStream_t stream);
/// rows[cursor[j]++] = every cell listing landmark j among their topn; cursor starts at each
/// landmark's offset (an exclusive prefix sum of the counts), so that landmark j's cells fill
/// rows[offset[j], offset[j + 1]) in no particular order.
void launchFillIndex(const ListView& lists, int g, unsigned long long* cursor, uint32_t* rows,
                     cudaStream_t stream);
/// out[0..total) = the concatenation of `segments` ranges of rows: range s starts at
/// rows[starts[s]] and fills out[prefix[s], prefix[s + 1]) (prefix[segments] = total).
void launchGatherRows(const uint32_t* rows, const unsigned long long* starts,
                      const unsigned long long* prefix, int segments, size_t total, uint32_t* out,
                      cudaStream_t stream);
/// *count += the nonzero bytes of flags[0..n).
void launchCountFlags(const uint8_t* flags, size_t n, unsigned long long* count,
                      cudaStream_t stream);

/// launchFirstOfLists' entry for a cell with NaN or infinity (its list, if any, is of the
/// finite coordinates or of zeros in their place: not the cell's nearest landmark).
constexpr uint32_t kNoNearest = 0xffffffffu;
/// nearest[p] = the first landmark of cell p's sorted list (idx: kOut entries a cell), then
/// kNoNearest for the cells queued[0..*queuedCount) (the k-NN's queue of cells with NaN or
/// infinity, indices into the n cells).
void launchFirstOfLists(const uint32_t* idx, int kOut, size_t n, const uint32_t* queued,
                        const unsigned long long* queuedCount, uint32_t* nearest,
                        cudaStream_t stream);

}  // namespace sepal::cuda
