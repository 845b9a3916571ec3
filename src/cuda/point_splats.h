#pragma once
// The point layer drawn by CUDA: every cell splatted into the picture in one pass, for pictures
// of 10^7 to 10^8 cells that OpenGL's point rasterisation draws in tenths of a second. A splat
// covers the pixels OpenGL's round point would (render/cpu_splats.h), with the same soft rim.
// Blending is order-independent: per pixel the integer sums of colour x coverage and of coverage
// (exact, so the picture is the same whatever order the GPU's threads take); the pixel's alpha
// is that of its splats composited one over another, 1 - (1 - alpha)^(coverage), and its colour
// their coverage-weighted mean (OpenGL's in-order blending shows the last drawn cell's instead).
// Because the sums are exact, a picture of the same view and cells as the last one is an update:
// the cells whose position or colour changed are taken out of the sums and drawn again, the same
// picture as a whole redraw at the cost of the changed cells (a training frame's slice, a drag).
// No OpenGL here: the caller passes device pointers (mapped buffers).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/device_buffer.h"

namespace sepal::cuda {

/// What one picture is drawn from; all pointers are device pointers, read during draw() only
/// (nothing may write them meanwhile: the copy an update starts from is taken from them).
struct SplatInput {
    const float* xy = nullptr;      ///< n x 2 world positions
    const uint8_t* rgba = nullptr;  ///< n x 4 colour bytes (alpha 0: not drawn, a gated cell)
    size_t n = 0;                   ///< cells
    float scale[2] = {1, 1};        ///< world to clip space (Camera::clipTransform)
    float offset[2] = {0, 0};       ///< world to clip space
    float pointSize = 1;            ///< splat diameter in pixels
    float alpha = 1;                ///< opacity of one splat
    int width = 0, height = 0;      ///< picture in pixels
};

/// Coverage units per splat pixel at full coverage: the soft rim and the colour's alpha are
/// quantised to 1/16.
constexpr int kSplatCoverageUnits = 16;

/// World to pixel (x * ax + bx, pixel centres at whole numbers), the splat's half size and the
/// picture's size.
struct SplatGeometry {
    float ax = 0, bx = 0, ay = 0, by = 0;
    float half = 0, inverseHalf = 0;
    int width = 0, height = 0;
    /// True when both map every cell to the same pixels with the same splat.
    bool operator==(const SplatGeometry& o) const {
        return ax == o.ax && bx == o.bx && ay == o.ay && by == o.by && half == o.half &&
               width == o.width && height == o.height;
    }
};

/// Draws pictures of splats; keeps its accumulation buffer, the cells' tile order and (while the
/// view stays) a copy of the cells as drawn between pictures.
class CudaSplats {
  public:
    /// Turns updates on unless SEPAL_SPLAT_UPDATES=0 asks for whole pictures only.
    CudaSplats();
    /// Splats every cell of `in` and writes the picture to rgba8 (device memory, width x height
    /// x 4 bytes, rows bottom to top, premultiplied RGBA as the layer texture holds it). With
    /// the same view and cell count as the last two pictures, only the cells that changed since
    /// the last are drawn again (unless more than an eighth did, or the backoff holds: below).
    /// Returns when the picture is complete. Throws CudaError on device failures.
    void draw(const SplatInput& in, uint8_t* rgba8, cudaStream_t stream = nullptr);
    /// Allows or forbids updates (whole pictures only when off).
    void setUpdates(bool on) {
        m_updates = on;
        m_failedUpdates = m_picturesWithoutCopy = 0;  // a backoff of another setting ends
    }
    /// Allows or forbids the backoff (on by default): after k >= 2 updates in a row at one view
    /// gave up (most cells moved: a polish, a whole projection a frame), 2^(k-1) - 1 whole
    /// pictures (the one that gave up among them; at most 31) are drawn without keeping the
    /// copy, then one keeps it and the next tries again, so that such frames cost about what
    /// whole pictures do. One update that gave up keeps the copy, as before.
    void setBackoff(bool on) {
        m_backoff = on;
        m_failedUpdates = m_picturesWithoutCopy = 0;
    }
    /// Updates tried so far, those that gave up included.
    size_t updatesTried() const { return m_updatesTried; }
    /// True when the last picture was an update of the one before.
    bool lastWasUpdate() const { return m_lastWasUpdate; }
    /// Cells the last picture splatted: every cell for a whole picture, the changed ones for an
    /// update.
    size_t lastDrawnCells() const { return m_lastDrawnCells; }
    /// Milliseconds the last picture took on the device (events around its kernels).
    float lastDeviceMs() const { return m_lastMs; }
    /// Cells the last picture drew straight into the picture, outside any block's window (moved
    /// since the sort, in a chunk spanning several tiles, or all of them beyond 2^31 cells); of
    /// an update, the changed cells' new splats only.
    size_t lastStrays() const { return m_lastStrays; }
    /// Times the cells were sorted by tile.
    size_t sorts() const { return m_sorts; }
    /// Frees the events (the buffers free themselves).
    ~CudaSplats();

  private:
    /// Orders the cells by screen tile into m_keys[m_sorted] and m_cells[m_sorted].
    void sortByTile(const SplatInput& in, const SplatGeometry& g, int tilesX, int tilesY,
                    cudaStream_t stream);
    /// Splats every cell into cleared sums; keeps a copy of the cells as drawn when asked and
    /// says whether it did.
    bool drawWhole(const SplatInput& in, const SplatGeometry& g, bool keepDrawn,
                   cudaStream_t stream);
    /// Takes the cells that differ from the kept copy out of the sums and splats them anew;
    /// false (nothing done) when more than an eighth of the cells changed.
    bool update(const SplatInput& in, const SplatGeometry& g, cudaStream_t stream);
    /// Reserves the kept copy of the cells; false when the device has no room for it.
    bool reserveDrawn(size_t n);
    cudaEvent_t m_events[2] = {nullptr, nullptr};
    float m_lastMs = 0;
    DeviceBuffer<uint32_t> m_keys[2], m_cells[2];  // tile numbers and cells, double-buffered
    int m_sorted = 0;                              // the buffer holding the sorted order
    DeviceBuffer<uint8_t> m_sortTemp;
    DeviceBuffer<unsigned long long> m_strays;
    size_t m_sortedN = 0, m_lastStrays = 0, m_sortedStrays = 0, m_sorts = 0;
    int m_sortedWidth = 0, m_sortedHeight = 0;
    DeviceBuffer<unsigned long long>
        m_sums;  // per pixel: (red << 32 | green), (blue << 32 | cover)
    // The cells as the sums hold them (valid while m_drawnValid), the changed cells' count.
    DeviceBuffer<float> m_drawnXy;
    DeviceBuffer<uint8_t> m_drawnRgba;
    DeviceBuffer<unsigned long long> m_changed;
    bool m_updates = true, m_drawnValid = false, m_lastWasUpdate = false, m_backoff = true;
    // Updates that gave up in a row at this view, and the whole pictures left without the copy.
    int m_failedUpdates = 0, m_picturesWithoutCopy = 0;
    size_t m_updatesTried = 0;
    SplatGeometry m_lastGeometry;  // the last picture's view and cells, for the next's choice
    size_t m_lastN = 0, m_lastDrawnCells = 0, m_wholeStrays = 0;
};

}  // namespace sepal::cuda
