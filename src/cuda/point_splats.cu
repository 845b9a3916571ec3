// The CUDA point splats (point_splats.h).
//
// Decomposition: the picture is per pixel two 64-bit sums in global memory (red and green in one
// word, blue and coverage in the other; a pixel overflows past about a million full splats).
// The cells are sorted by screen tile (a radix sort of tile numbers, kept while the cells stay
// in their tiles); tiledSplatKernel gives each block kChunk consecutive cells of that order.
// When they lie in one tile or two side by side (a dense picture: nearly always), their splats
// are summed in shared memory and each pixel of the window goes to the picture once, so a dense
// blob's pixels no longer take one global atomic per cell; other chunks add straight in. Cells that
// left their window since the sort add straight into the picture, as splatKernel (one thread per
// cell, the path beyond 2^31 cells) does for all. The sums are integers, so the picture does not
// depend on the path or the order. resolveKernel is one thread per pixel.
//
// An update (same view, same cells) lists the cells that differ from the copy kept of the cells
// as drawn (changedCellsKernel reads the cells in their order, coalesced; the list holds them in
// the order the blocks took their places), sorts that list by the tiles of the new positions and
// runs tiledSplatKernel over it in its UPDATE form: each cell's old splat is subtracted, its new
// one added. The sums wrap modulo 2^64, so a subtraction leaves exactly the sums of the cells that
// remain: the same picture, bit for bit, as a whole redraw.

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>

#include "cuda/cuda_error.h"
#include "cuda/point_splats.h"

namespace sepal::cuda {

namespace {

constexpr int kThreads = 256;
// Tiles of the sort (pixels a side), cells a block draws, and the largest window a block sums in
// shared memory (four 32-bit sums a pixel: 44 KB; two tiles side by side with the rim of
// points up to 4 pixels; larger points get one-tile windows or none).
constexpr int kTile = 32;
constexpr size_t kChunk = 4096;
constexpr int kWindowPixels = 2816;
// An update lists at most an eighth of the cells: on an H200 at 10^8 cells a whole picture took
// 6.2 ms, an update of a fifth of them 5.4 (1-pixel points) to 7.2 ms (3 pixels).
constexpr size_t kMostChangedShare = 8;
// Updates that gave up in a row after which the backoff stops growing: 31 whole pictures
// without the copy, then one with it and a try.
constexpr int kMostFailedUpdates = 6;

__device__ __forceinline__ int floorToInt(float v) {
    const int i = int(v);
    return i - (v < float(i));
}

/// Visits every pixel a cell covers with deposit(inWindow, x, y, red, green, blue, coverage),
/// inWindow = deposit.covers(its pixel rectangle). Returns 0 when the cell draws nothing, 1 when
/// it drew in the window, 2 outside it. CpuSplats's geometry, every product and sum rounded on
/// its own (no fused multiply-add), so that the host reproduces the coverage exactly.
template <class Deposit>
__device__ __forceinline__ int splatCell(const SplatGeometry& g, float2 p, uchar4 c,
                                         const Deposit& deposit) {
    if (c.w == 0) return 0;
    const float cx = __fadd_rn(__fmul_rn(p.x, g.ax), g.bx);
    const float cy = __fadd_rn(__fmul_rn(p.y, g.ay), g.by);
    if (!(cx > -g.half - 1.0f && cx < float(g.width) + g.half)) return 0;  // or NaN
    if (!(cy > -g.half - 1.0f && cy < float(g.height) + g.half)) return 0;
    const int px0 = max(0, -floorToInt(g.half - cx)),
              px1 = min(g.width - 1, floorToInt(cx + g.half));
    const int py0 = max(0, -floorToInt(g.half - cy)),
              py1 = min(g.height - 1, floorToInt(cy + g.half));
    const float units = float(kSplatCoverageUnits) * float(c.w) / 255.0f;
    const bool inWindow = deposit.covers(px0, px1, py0, py1);
    for (int y = py0; y <= py1; ++y) {
        const float dy = __fmul_rn(__fsub_rn(float(y), cy), g.inverseHalf);
        for (int x = px0; x <= px1; ++x) {
            const float dx = __fmul_rn(__fsub_rn(float(x), cx), g.inverseHalf);
            const float r2 = __fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy));
            if (r2 > 1.0f) continue;
            float cover = 1.0f;
            if (r2 > 0.6f) {  // points.frag: 1 - smoothstep(0.6, 1.0, r2) at the rim
                const float t = __fmul_rn(__fsub_rn(r2, 0.6f), 2.5f);
                cover = __fsub_rn(1.0f,
                                  __fmul_rn(__fmul_rn(t, t), __fsub_rn(3.0f, __fmul_rn(2.0f, t))));
            }
            const int q = __float2int_rn(__fmul_rn(cover, units));
            if (q == 0) continue;
            deposit(inWindow, x, y, c.x * q, c.y * q, c.z * q, q);
        }
    }
    return inWindow ? 1 : 2;
}

/// The 64-bit word that adds `high` x 2^32 + `low` to a pair of packed sums, modulo 2^64 (a
/// negative share subtracts).
__device__ __forceinline__ unsigned long long packedShare(int high, int low) {
    return (static_cast<unsigned long long>(static_cast<long long>(high)) << 32) +
           static_cast<unsigned long long>(static_cast<long long>(low));
}

/// Adds a pixel's share (negative: taken out) to the picture's sums in global memory.
__device__ __forceinline__ void addToPicture(unsigned long long* sums, int width, int x, int y,
                                             int red, int green, int blue, int cover) {
    unsigned long long* s = sums + 2 * (size_t(y) * width + x);
    atomicAdd(s, packedShare(red, green));
    atomicAdd(s + 1, packedShare(blue, cover));
}

/// Every deposit straight into the picture.
struct GlobalDeposit {
    unsigned long long* sums;
    int width;
    __device__ bool covers(int, int, int, int) const { return false; }
    __device__ void operator()(bool, int x, int y, int r, int g, int b, int q) const {
        addToPicture(sums, width, x, y, r, g, b, q);
    }
};

__global__ void splatKernel(const SplatInput in, SplatGeometry g, unsigned long long* sums) {
    const uchar4* colours = reinterpret_cast<const uchar4*>(in.rgba);
    const float2* xy = reinterpret_cast<const float2*>(in.xy);
    const GlobalDeposit deposit{sums, g.width};
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < in.n;
         i += size_t(gridDim.x) * blockDim.x)
        splatCell(g, xy[i], colours[i], deposit);
}

/// Sort key of a cell: the screen tile (row-major) of its centre; tilesX x tilesY (sorted last)
/// when it is transparent or its centre lies off the picture (such a cell near the edge still
/// draws, outside any window).
__device__ __forceinline__ uint32_t tileKey(const SplatGeometry& g, float2 p, uchar4 c, int tilesX,
                                            int tilesY) {
    const float cx = __fadd_rn(__fmul_rn(p.x, g.ax), g.bx);
    const float cy = __fadd_rn(__fmul_rn(p.y, g.ay), g.by);
    if (c.w != 0 && cx >= 0.0f && cx < float(g.width) && cy >= 0.0f && cy < float(g.height))
        return uint32_t(int(cy) / kTile * tilesX + int(cx) / kTile);
    return uint32_t(tilesX * tilesY);  // last: transparent, off the picture, NaN
}

__global__ void tileKeyKernel(const SplatInput in, SplatGeometry g, int tilesX, int tilesY,
                              uint32_t* keys, uint32_t* cells) {
    const uchar4* colours = reinterpret_cast<const uchar4*>(in.rgba);
    const float2* xy = reinterpret_cast<const float2*>(in.xy);
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < in.n;
         i += size_t(gridDim.x) * blockDim.x) {
        keys[i] = tileKey(g, xy[i], colours[i], tilesX, tilesY);
        cells[i] = uint32_t(i);
    }
}

/// Lists the cells whose position (bit for bit) or colour differs from the copy as drawn, with
/// the tile keys of their new positions: up to `capacity` of them; `count` counts them all. A
/// block takes kChunk cells (kChunk / kThreads a thread, read coalesced) and one atomic: one a
/// warp made a single counter the bottleneck when the changed cells are spread thin (a drag's
/// cluster is every 20th cell of a picture).
__global__ void __launch_bounds__(kThreads)
    changedCellsKernel(const SplatInput in, SplatGeometry g, int tilesX, int tilesY,
                       const float2* drawnXy, const uchar4* drawnRgba, uint32_t* keys,
                       uint32_t* cells, size_t capacity, unsigned long long* count) {
    using Scan = cub::BlockScan<unsigned, kThreads>;
    constexpr int kEach = int(kChunk) / kThreads;
    static_assert(kEach <= 32, "a thread's changed cells are bits of one word");
    __shared__ typename Scan::TempStorage scan;
    __shared__ unsigned long long blockBase;
    const uchar4* colours = reinterpret_cast<const uchar4*>(in.rgba);
    const uint2* xy = reinterpret_cast<const uint2*>(in.xy);
    const uint2* drawn = reinterpret_cast<const uint2*>(drawnXy);
    const uint32_t* colourWords = reinterpret_cast<const uint32_t*>(in.rgba);
    const uint32_t* drawnWords = reinterpret_cast<const uint32_t*>(drawnRgba);
    const size_t c0 = size_t(blockIdx.x) * kChunk + threadIdx.x;
    unsigned changed = 0, mine = 0;
#pragma unroll
    for (int j = 0; j < kEach; ++j) {
        const size_t i = c0 + size_t(j) * kThreads;
        if (i >= in.n) continue;
        const uint2 p = xy[i], q = drawn[i];
        if (p.x != q.x || p.y != q.y || colourWords[i] != drawnWords[i]) {
            changed |= 1u << j;
            ++mine;
        }
    }
    unsigned offset = 0, total = 0;
    Scan(scan).ExclusiveSum(mine, offset, total);
    if (threadIdx.x == 0) blockBase = total ? atomicAdd(count, (unsigned long long)total) : 0;
    __syncthreads();
    for (; changed; changed &= changed - 1, ++offset) {
        const unsigned long long slot = blockBase + offset;
        if (slot >= capacity) break;
        const size_t i = c0 + size_t(__ffs(changed) - 1) * kThreads;
        const uint2 p = xy[i];
        keys[slot] = tileKey(g, make_float2(__uint_as_float(p.x), __uint_as_float(p.y)), colours[i],
                             tilesX, tilesY);
        cells[slot] = uint32_t(i);
    }
}

/// Deposits inside the block's window go to shared memory (32-bit sums, wrapping where an update
/// subtracts: a chunk's cells cannot overflow them), the others (cells that moved since the sort)
/// straight into the picture.
struct WindowDeposit {
    unsigned* window;  ///< 4 sums a pixel: red, green, blue, coverage
    int x0, y0, x1, y1, span;
    unsigned long long* sums;
    int width;
    __device__ bool covers(int px0, int px1, int py0, int py1) const {
        return px0 >= x0 && px1 < x1 && py0 >= y0 && py1 < y1;
    }
    __device__ void operator()(bool inWindow, int x, int y, int r, int g, int b, int q) const {
        if (!inWindow) return addToPicture(sums, width, x, y, r, g, b, q);
        unsigned* w = window + 4 * ((y - y0) * span + (x - x0));
        atomicAdd(w, unsigned(r));
        atomicAdd(w + 1, unsigned(g));
        atomicAdd(w + 2, unsigned(b));
        atomicAdd(w + 3, unsigned(q));
    }
};

/// A deposit taken out: an update's old splat of a cell.
struct Withdrawal {
    const WindowDeposit& deposit;
    __device__ bool covers(int px0, int px1, int py0, int py1) const {
        return deposit.covers(px0, px1, py0, py1);
    }
    __device__ void operator()(bool inWindow, int x, int y, int r, int g, int b, int q) const {
        deposit(inWindow, x, y, -r, -g, -b, -q);
    }
};

/// One block a chunk of kChunk cells in tile order (`count` of them listed by keys and cells):
/// its window is the tiles its first and last cells had at the sort (one or two side by side)
/// with a rim for the splats' radius; the sums gathered there go to the picture once per pixel.
/// strays counts the cells drawn outside it. UPDATE: each listed cell's splat at its drawn
/// position and colour is taken out first, and the drawn copy becomes the cell's new state.
template <bool UPDATE>
__global__ void __launch_bounds__(kThreads)
    tiledSplatKernel(const SplatInput in, SplatGeometry g, int tilesX, int rim,
                     const uint32_t* keys, const uint32_t* cells, size_t count,
                     unsigned long long* sums, unsigned long long* strays, float2* drawnXy,
                     uchar4* drawnRgba) {
    __shared__ unsigned window[4 * kWindowPixels];
    __shared__ unsigned blockStrays;
    const size_t c0 = size_t(blockIdx.x) * kChunk;
    const size_t c1 = min(count, c0 + kChunk);
    const uint32_t k0 = keys[c0], k1 = keys[c1 - 1];
    WindowDeposit deposit{window, 0, 0, 0, 0, 0, sums, g.width};
    const uint32_t off = uint32_t(tilesX) * uint32_t((g.height + kTile - 1) / kTile);
    if (k1 < off && k0 / tilesX == k1 / tilesX && k1 - k0 <= 1) {
        deposit.x0 = max(0, int(k0 % tilesX) * kTile - rim);
        deposit.x1 = min(g.width, int(k1 % tilesX + 1) * kTile + rim);
        deposit.y0 = max(0, int(k0 / tilesX) * kTile - rim);
        deposit.y1 = min(g.height, int(k0 / tilesX + 1) * kTile + rim);
        deposit.span = deposit.x1 - deposit.x0;
        if (deposit.span * (deposit.y1 - deposit.y0) > kWindowPixels) deposit.x1 = deposit.x0;
    }
    const int pixels = deposit.span * (deposit.y1 - deposit.y0) * (deposit.x1 > deposit.x0);
    for (int e = threadIdx.x; e < 4 * pixels; e += blockDim.x) window[e] = 0;
    if (threadIdx.x == 0) blockStrays = 0;
    __syncthreads();
    const uchar4* colours = reinterpret_cast<const uchar4*>(in.rgba);
    const float2* xy = reinterpret_cast<const float2*>(in.xy);
    unsigned mine = 0;
    for (size_t i = c0 + threadIdx.x; i < c1; i += blockDim.x) {
        const uint32_t cell = cells[i];
        const float2 p = xy[cell];
        const uchar4 c = colours[cell];
        if (UPDATE) {
            splatCell(g, drawnXy[cell], drawnRgba[cell], Withdrawal{deposit});
            drawnXy[cell] = p;
            drawnRgba[cell] = c;
        }
        mine += splatCell(g, p, c, deposit) == 2;
    }
    if (mine) atomicAdd(&blockStrays, mine);
    __syncthreads();
    for (int e = threadIdx.x; e < pixels; e += blockDim.x) {
        const unsigned* w = window + 4 * e;
        // An update's recoloured cell leaves the coverage's sum as it was: any sum that moved.
        if ((w[0] | w[1] | w[2] | w[3]) == 0) continue;
        addToPicture(sums, g.width, deposit.x0 + e % deposit.span, deposit.y0 + e / deposit.span,
                     int(w[0]), int(w[1]), int(w[2]), int(w[3]));
    }
    if (threadIdx.x == 0 && blockStrays) atomicAdd(strays, (unsigned long long)blockStrays);
}

__global__ void resolveKernel(const unsigned long long* sums, size_t pixels, float logKeep,
                              uchar4* out) {
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += size_t(gridDim.x) * blockDim.x) {
        const unsigned long long rg = sums[2 * i], bq = sums[2 * i + 1];
        const unsigned q = unsigned(bq & 0xffffffffu);
        if (q == 0) {
            out[i] = make_uchar4(0, 0, 0, 0);
            continue;
        }
        // 1 - (1 - alpha)^(splats), splats = q / units; logKeep = log2(1 - alpha) (-inf: opaque).
        const float a = 1.0f - exp2f(float(q) * (logKeep / float(kSplatCoverageUnits)));
        const float scale = a / (255.0f * float(q));
        auto byte = [](float v) {
            return static_cast<unsigned char>(__float2int_rn(fminf(fmaxf(v, 0.0f), 1.0f) * 255.0f));
        };
        out[i] = make_uchar4(byte(float(rg >> 32) * scale), byte(float(rg & 0xffffffffu) * scale),
                             byte(float(bq >> 32) * scale), byte(a));
    }
}

unsigned blocksFor(size_t work) {
    const size_t wanted = (work + kThreads - 1) / kThreads;
    return unsigned(wanted < 65536 ? (wanted > 0 ? wanted : 1) : 65536);
}

bool updatesFromEnvironment() {
    const char* v = std::getenv("SEPAL_SPLAT_UPDATES");
    return !(v && std::string(v) == "0");
}

/// Bits a radix sort of tile keys needs: a tile number, or the key past the last tile.
int keyBits(int tilesX, int tilesY) {
    const uint32_t off = uint32_t(tilesX) * uint32_t(tilesY);
    int bits = 1;
    while (bits < 32 && (off >> bits) != 0) ++bits;
    return bits;
}

}  // namespace

CudaSplats::CudaSplats() : m_updates(updatesFromEnvironment()) {}

CudaSplats::~CudaSplats() {
    for (cudaEvent_t e : m_events)
        if (e) cudaEventDestroy(e);
}

void CudaSplats::draw(const SplatInput& in, uint8_t* rgba8, cudaStream_t stream) {
    if (in.width <= 0 || in.height <= 0) return;
    for (cudaEvent_t& e : m_events)
        if (!e) SEPAL_CUDA_CHECK(cudaEventCreate(&e));
    SEPAL_CUDA_CHECK(cudaEventRecord(m_events[0], stream));
    const size_t pixels = size_t(in.width) * size_t(in.height);
    // World to pixel in one multiply-add; pixel centres are at +0.5 (CpuSplats::draw).
    const float toPixelX = 0.5f * float(in.width), toPixelY = 0.5f * float(in.height);
    const float ax = in.scale[0] * toPixelX, bx = (in.offset[0] + 1.0f) * toPixelX - 0.5f;
    const float ay = in.scale[1] * toPixelY, by = (in.offset[1] + 1.0f) * toPixelY - 0.5f;
    const float half = 0.5f * in.pointSize;
    const SplatGeometry g{ax, bx, ay, by, half, half > 0 ? 1.0f / half : 0.0f, in.width, in.height};
    m_strays.reserve(1);
    SEPAL_CUDA_CHECK(cudaMemsetAsync(m_strays.get(), 0, sizeof(unsigned long long), stream));
    // An update needs the kept copy, taken at a picture of this view and these cells; the copy
    // is taken from the second picture of a view on (a pan or a zoom never pays for it).
    const bool sameView = in.n == m_lastN && g == m_lastGeometry;
    const bool updatable = m_updates && m_drawnValid && sameView;
    const size_t sortsBefore = m_sorts;
    m_drawnValid = false;  // until this picture is complete
    m_lastGeometry = SplatGeometry{};
    m_lastWasUpdate = updatable && update(in, g, stream);
    m_updatesTried += updatable;
    // Backoff: where most cells move every picture, each would pay the change list, then the
    // whole picture and the copy (about 1-1.5 ms of 6.2 at 10^8 cells).
    if (!sameView || m_lastWasUpdate) {
        m_failedUpdates = m_picturesWithoutCopy = 0;
    } else if (updatable && m_backoff) {
        m_failedUpdates = std::min(m_failedUpdates + 1, kMostFailedUpdates);
        m_picturesWithoutCopy = (1 << (m_failedUpdates - 1)) - 1;
    }
    const bool copy = m_updates && sameView && m_picturesWithoutCopy == 0;
    if (!m_lastWasUpdate && !copy && m_picturesWithoutCopy > 0) --m_picturesWithoutCopy;
    const bool kept = m_lastWasUpdate || drawWhole(in, g, copy, stream);
    const float logKeep = in.alpha >= 1.0f ? -INFINITY : std::log2(1.0f - in.alpha);
    resolveKernel<<<blocksFor(pixels), kThreads, 0, stream>>>(m_sums.get(), pixels, logKeep,
                                                              reinterpret_cast<uchar4*>(rgba8));
    SEPAL_CUDA_CHECK_LAUNCH("resolveKernel");
    SEPAL_CUDA_CHECK(cudaEventRecord(m_events[1], stream));
    SEPAL_CUDA_CHECK(cudaStreamSynchronize(stream));
    SEPAL_CUDA_CHECK(cudaEventElapsedTime(&m_lastMs, m_events[0], m_events[1]));
    unsigned long long strays = in.n;
    if (m_lastWasUpdate || (in.n > 0 && in.n <= size_t(INT_MAX)))
        SEPAL_CUDA_CHECK(
            cudaMemcpy(&strays, m_strays.get(), sizeof(strays), cudaMemcpyDeviceToHost));
    m_lastStrays = size_t(strays);
    if (!m_lastWasUpdate) m_wholeStrays = m_lastStrays;
    // Strays right after a sort are chunks that span tiles (a sparse picture): not a reason to
    // sort again.
    if (m_sorts != sortsBefore) m_sortedStrays = m_lastStrays;
    m_drawnValid = kept;
    m_lastGeometry = g;
    m_lastN = in.n;
}

bool CudaSplats::drawWhole(const SplatInput& in, const SplatGeometry& g, bool keepDrawn,
                           cudaStream_t stream) {
    const size_t pixels = size_t(g.width) * size_t(g.height);
    m_sums.reserve(2 * pixels);
    SEPAL_CUDA_CHECK(
        cudaMemsetAsync(m_sums.get(), 0, 2 * pixels * sizeof(unsigned long long), stream));
    m_lastDrawnCells = in.n;
    if (in.n == 0) return false;
    if (in.n > size_t(INT_MAX)) {
        splatKernel<<<blocksFor(in.n), kThreads, 0, stream>>>(in, g, m_sums.get());
        SEPAL_CUDA_CHECK_LAUNCH("splatKernel");
        return false;
    }
    const int tilesX = (g.width + kTile - 1) / kTile, tilesY = (g.height + kTile - 1) / kTile;
    // Sorted again when the cells or the picture changed, or when another eighth of the cells
    // that were in windows right after the sort left them (a pan, a zoom, a long drag).
    const bool sort = in.n != m_sortedN || g.width != m_sortedWidth || g.height != m_sortedHeight ||
                      m_wholeStrays > m_sortedStrays + (in.n - std::min(in.n, m_sortedStrays)) / 8;
    if (sort) sortByTile(in, g, tilesX, tilesY, stream);
    const int rim = int(std::ceil(g.half)) + 1;
    tiledSplatKernel<false><<<unsigned((in.n + kChunk - 1) / kChunk), kThreads, 0, stream>>>(
        in, g, tilesX, rim, m_keys[m_sorted].get(), m_cells[m_sorted].get(), in.n, m_sums.get(),
        m_strays.get(), nullptr, nullptr);
    SEPAL_CUDA_CHECK_LAUNCH("tiledSplatKernel");
    if (!keepDrawn || !reserveDrawn(in.n)) return false;
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_drawnXy.get(), in.xy, 2 * in.n * sizeof(float),
                                     cudaMemcpyDeviceToDevice, stream));
    SEPAL_CUDA_CHECK(
        cudaMemcpyAsync(m_drawnRgba.get(), in.rgba, 4 * in.n, cudaMemcpyDeviceToDevice, stream));
    return true;
}

bool CudaSplats::update(const SplatInput& in, const SplatGeometry& g, cudaStream_t stream) {
    if (in.n == 0 || in.n > size_t(INT_MAX) || m_sortedN != in.n) return false;
    const int tilesX = (g.width + kTile - 1) / kTile, tilesY = (g.height + kTile - 1) / kTile;
    // The list and the sort's second buffers in the halves of the tile order's spare buffers.
    const size_t capacity = in.n / kMostChangedShare, half = (in.n + 1) / 2;
    uint32_t* keys = m_keys[1 - m_sorted].get();
    uint32_t* cells = m_cells[1 - m_sorted].get();
    m_changed.reserve(1);
    SEPAL_CUDA_CHECK(cudaMemsetAsync(m_changed.get(), 0, sizeof(unsigned long long), stream));
    changedCellsKernel<<<unsigned((in.n + kChunk - 1) / kChunk), kThreads, 0, stream>>>(
        in, g, tilesX, tilesY, reinterpret_cast<const float2*>(m_drawnXy.get()),
        reinterpret_cast<const uchar4*>(m_drawnRgba.get()), keys, cells, capacity, m_changed.get());
    SEPAL_CUDA_CHECK_LAUNCH("changedCellsKernel");
    unsigned long long count = 0;
    SEPAL_CUDA_CHECK(
        cudaMemcpyAsync(&count, m_changed.get(), sizeof(count), cudaMemcpyDeviceToHost, stream));
    SEPAL_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (count > capacity) return false;
    m_lastDrawnCells = size_t(count);
    if (count == 0) return true;
    cub::DoubleBuffer<uint32_t> sortedKeys(keys, keys + half);
    cub::DoubleBuffer<uint32_t> sortedCells(cells, cells + half);
    const int bits = keyBits(tilesX, tilesY);
    size_t tempBytes = 0;
    SEPAL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, tempBytes, sortedKeys, sortedCells,
                                                     int(count), 0, bits, stream));
    m_sortTemp.reserve(std::max<size_t>(tempBytes, 1));
    SEPAL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m_sortTemp.get(), tempBytes, sortedKeys,
                                                     sortedCells, int(count), 0, bits, stream));
    const int rim = int(std::ceil(g.half)) + 1;
    tiledSplatKernel<true><<<unsigned((count + kChunk - 1) / kChunk), kThreads, 0, stream>>>(
        in, g, tilesX, rim, sortedKeys.Current(), sortedCells.Current(), size_t(count),
        m_sums.get(), m_strays.get(), reinterpret_cast<float2*>(m_drawnXy.get()),
        reinterpret_cast<uchar4*>(m_drawnRgba.get()));
    SEPAL_CUDA_CHECK_LAUNCH("tiledSplatKernel");
    return true;
}

bool CudaSplats::reserveDrawn(size_t n) {
    try {
        m_drawnXy.reserve(2 * n);
        m_drawnRgba.reserve(4 * n);
        return true;
    } catch (const CudaError&) {
        // No room beside the data: whole pictures from now on, as before updates existed.
        m_drawnXy.release();
        m_drawnRgba.release();
        cudaGetLastError();
        m_updates = false;
        return false;
    }
}

void CudaSplats::sortByTile(const SplatInput& in, const SplatGeometry& g, int tilesX, int tilesY,
                            cudaStream_t stream) {
    const size_t n = in.n;
    m_sortedN = 0;  // no order until this one is complete (a failure leaves none)
    for (int b = 0; b < 2; ++b) {
        m_keys[b].reserve(n);
        m_cells[b].reserve(n);
    }
    tileKeyKernel<<<blocksFor(n), kThreads, 0, stream>>>(in, g, tilesX, tilesY, m_keys[0].get(),
                                                         m_cells[0].get());
    SEPAL_CUDA_CHECK_LAUNCH("tileKeyKernel");
    const int bits = keyBits(tilesX, tilesY);
    // Double buffers: the sort needs no copy of its own (small work space), and says which
    // buffer ends up sorted.
    cub::DoubleBuffer<uint32_t> keys(m_keys[0].get(), m_keys[1].get());
    cub::DoubleBuffer<uint32_t> cells(m_cells[0].get(), m_cells[1].get());
    size_t tempBytes = 0;
    SEPAL_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(nullptr, tempBytes, keys, cells, int(n), 0, bits, stream));
    m_sortTemp.reserve(std::max<size_t>(tempBytes, 1));
    SEPAL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m_sortTemp.get(), tempBytes, keys, cells,
                                                     int(n), 0, bits, stream));
    m_sorted = keys.selector;
    m_sortedN = n;
    m_sortedWidth = in.width;
    m_sortedHeight = in.height;
    ++m_sorts;
}

}  // namespace sepal::cuda
