// The CUDA point splats against a host rendition of the same rules: the pixels a splat covers
// (OpenGL's round point, CpuSplats's geometry), its soft rim, the order-independent sums and the
// resolve to premultiplied RGBA8; and an update (the changed cells taken out and drawn again)
// against a whole redraw, bit for bit.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cuda/device_buffer.h"
#include "cuda/point_splats.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

/// The picture as point_splats.cu defines it, on the host.
std::vector<uint8_t> hostSplats(const std::vector<float>& xy, const std::vector<uint8_t>& rgba,
                                const cuda::SplatInput& in) {
    const size_t pixels = size_t(in.width) * size_t(in.height);
    std::vector<uint64_t> red(pixels), green(pixels), blue(pixels), cover(pixels);
    const float half = 0.5f * in.pointSize, inverseHalf = half > 0 ? 1.0f / half : 0.0f;
    const float toPixelX = 0.5f * float(in.width), toPixelY = 0.5f * float(in.height);
    const float ax = in.scale[0] * toPixelX, bx = (in.offset[0] + 1.0f) * toPixelX - 0.5f;
    const float ay = in.scale[1] * toPixelY, by = (in.offset[1] + 1.0f) * toPixelY - 0.5f;
    for (size_t i = 0; i < xy.size() / 2; ++i) {
        const uint8_t* c = &rgba[4 * i];
        if (c[3] == 0) continue;
        const float cx = xy[2 * i] * ax + bx, cy = xy[2 * i + 1] * ay + by;
        if (!(cx > -half - 1.0f && cx < float(in.width) + half)) continue;
        if (!(cy > -half - 1.0f && cy < float(in.height) + half)) continue;
        const float units = float(cuda::kSplatCoverageUnits) * float(c[3]) / 255.0f;
        for (int y = std::max(0, int(std::floor(cy - half)));
             y <= std::min(in.height - 1, int(std::floor(cy + half))); ++y)
            for (int x = std::max(0, int(std::floor(cx - half)));
                 x <= std::min(in.width - 1, int(std::floor(cx + half))); ++x) {
                // Pixel centres inside the point's square, then inside its disc.
                if (float(x) < cx - half || float(x) > cx + half) continue;
                if (float(y) < cy - half || float(y) > cy + half) continue;
                const float dx = (float(x) - cx) * inverseHalf, dy = (float(y) - cy) * inverseHalf;
                const float r2 = dx * dx + dy * dy;
                if (r2 > 1.0f) continue;
                float k = 1.0f;
                if (r2 > 0.6f) {
                    const float t = (r2 - 0.6f) * 2.5f;
                    k = 1.0f - t * t * (3.0f - 2.0f * t);
                }
                const uint64_t q = uint64_t(std::lrint(k * units));
                const size_t p = size_t(y) * in.width + x;
                red[p] += c[0] * q, green[p] += c[1] * q, blue[p] += c[2] * q, cover[p] += q;
            }
    }
    std::vector<uint8_t> out(pixels * 4, 0);
    for (size_t p = 0; p < pixels; ++p) {
        if (cover[p] == 0) continue;
        const double a = in.alpha >= 1
                             ? 1.0
                             : 1.0 - std::pow(1.0 - double(in.alpha),
                                              double(cover[p]) / cuda::kSplatCoverageUnits);
        auto byte = [](double v) { return uint8_t(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
        const double s = a / (255.0 * double(cover[p]));
        out[4 * p] = byte(double(red[p]) * s);
        out[4 * p + 1] = byte(double(green[p]) * s);
        out[4 * p + 2] = byte(double(blue[p]) * s);
        out[4 * p + 3] = byte(a);
    }
    return out;
}

TEST(CudaSplats, EqualTheHostsRenditionOfTheSameRules) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 200000;
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 0.4f);
    std::vector<float> xy(2 * n);
    std::vector<uint8_t> rgba(4 * n);
    for (size_t i = 0; i < n; ++i) {
        xy[2 * i] = normal(rng), xy[2 * i + 1] = normal(rng);  // some beyond the picture
        for (int c = 0; c < 3; ++c) rgba[4 * i + c] = uint8_t(rng() % 256);
        rgba[4 * i + 3] = i % 10 == 0 ? 0 : (i % 10 == 1 ? 128 : 255);  // gated, faded, shown
    }
    xy[2 * 7] = NAN;
    xy[2 * 8 + 1] = INFINITY;
    cuda::DeviceBuffer<float> dxy;
    cuda::DeviceBuffer<uint8_t> drgba, dout;
    dxy.reserve(xy.size());
    drgba.reserve(rgba.size());
    ASSERT_EQ(cudaMemcpy(dxy.get(), xy.data(), xy.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(drgba.get(), rgba.data(), rgba.size(), cudaMemcpyHostToDevice),
              cudaSuccess);
    cuda::CudaSplats splats;
    for (float size : {1.0f, 3.0f, 5.5f})
        for (float alpha : {0.25f, 1.0f}) {
            cuda::SplatInput in;
            in.xy = dxy.get();
            in.rgba = drgba.get();
            in.n = n;
            in.scale[0] = 1.1f, in.scale[1] = 0.9f, in.offset[0] = 0.05f, in.offset[1] = -0.1f;
            in.pointSize = size, in.alpha = alpha;
            in.width = 301, in.height = 199;
            dout.reserve(size_t(in.width) * in.height * 4);
            splats.draw(in, dout.get());
            std::vector<uint8_t> got(size_t(in.width) * in.height * 4);
            ASSERT_EQ(cudaMemcpy(got.data(), dout.get(), got.size(), cudaMemcpyDeviceToHost),
                      cudaSuccess);
            const auto want = hostSplats(xy, rgba, in);
            size_t covered = 0, off = 0;
            for (size_t i = 0; i < got.size(); ++i) {
                off += std::abs(int(got[i]) - int(want[i])) > 1;  // exp2f against pow
                covered += i % 4 == 3 && want[i] > 0;
            }
            EXPECT_EQ(off, 0u) << "size " << size << ", alpha " << alpha;
            EXPECT_GT(covered, size_t(in.width) * in.height / 4) << "size " << size;
        }
}

TEST(CudaSplats, CellsThatMoveSinceTheTileSortAreStillDrawnExactly) {
    SEPAL_REQUIRE_GPU();
    // Many cells to a tile, as a picture of millions has them: the blocks sum their tiles in
    // shared memory. Then cells move (a third by 48 pixels, some far) and are drawn from the old
    // tile order, outside their windows, until a fresh sort.
    const size_t n = 300000;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::vector<float> xy(2 * n);
    std::vector<uint8_t> rgba(4 * n);
    for (size_t i = 0; i < n; ++i) {
        xy[2 * i] = unit(rng), xy[2 * i + 1] = unit(rng);
        for (int c = 0; c < 3; ++c) rgba[4 * i + c] = uint8_t(rng() % 256);
        rgba[4 * i + 3] = i % 7 == 0 ? 0 : 200;
    }
    cuda::DeviceBuffer<float> dxy;
    cuda::DeviceBuffer<uint8_t> drgba, dout;
    dxy.reserve(xy.size());
    drgba.reserve(rgba.size());
    ASSERT_EQ(cudaMemcpy(drgba.get(), rgba.data(), rgba.size(), cudaMemcpyHostToDevice),
              cudaSuccess);
    cuda::SplatInput in;
    in.xy = dxy.get();
    in.rgba = drgba.get();
    in.n = n;
    in.pointSize = 3.0f, in.alpha = 0.3f;
    in.width = 256, in.height = 160;  // 40 tiles, 7500 cells each
    dout.reserve(size_t(in.width) * in.height * 4);
    cuda::CudaSplats splats;
    splats.setUpdates(false);  // the whole pictures' tile order is what this test follows
    auto drawAndCompare = [&](const char* what) {
        EXPECT_EQ(cudaMemcpy(dxy.get(), xy.data(), xy.size() * 4, cudaMemcpyHostToDevice),
                  cudaSuccess);
        splats.draw(in, dout.get());
        std::vector<uint8_t> got(size_t(in.width) * in.height * 4);
        EXPECT_EQ(cudaMemcpy(got.data(), dout.get(), got.size(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        const auto want = hostSplats(xy, rgba, in);
        size_t off = 0;
        for (size_t i = 0; i < got.size(); ++i) off += std::abs(int(got[i]) - int(want[i])) > 1;
        EXPECT_EQ(off, 0u) << what;
    };
    drawAndCompare("sorted");
    EXPECT_EQ(splats.sorts(), 1u);
    EXPECT_LT(splats.lastStrays(), n / 8) << "the blocks did not sum in their windows";
    for (size_t i = 0; i < n; i += 3) xy[2 * i + 1] += 0.6f;  // 48 pixels: out of any window
    for (size_t i = 0; i < n; i += 97) xy[2 * i + 1] = unit(rng);
    drawAndCompare("moved since the sort");
    EXPECT_EQ(splats.sorts(), 1u) << "sorted again before any stray was seen";
    EXPECT_GT(splats.lastStrays(), n / 8) << "the moved cells were not drawn outside";
    drawAndCompare("sorted again");
    EXPECT_EQ(splats.sorts(), 2u);
    EXPECT_LT(splats.lastStrays(), n / 8);
}

/// Clusters of cells, as a picture of millions has them, a few beyond the picture and every
/// ninth gated out; on the device, drawn by CudaSplats painters and read back.
struct BlobScene {
    std::vector<float> xy;
    std::vector<uint8_t> rgba;
    cuda::DeviceBuffer<float> dxy;
    cuda::DeviceBuffer<uint8_t> drgba, dout;
    cuda::SplatInput in;

    BlobScene(size_t n, uint32_t seed) : xy(2 * n), rgba(4 * n) {
        std::mt19937 rng(seed);
        std::normal_distribution<float> normal(0.0f, 0.07f);
        for (size_t i = 0; i < n; ++i) {
            const size_t blob = (i * 2654435761u) % 12;
            xy[2 * i] = -0.8f + 0.15f * float(blob) + normal(rng);
            xy[2 * i + 1] = 0.5f * std::sin(float(blob)) + normal(rng);
            for (int c = 0; c < 3; ++c) rgba[4 * i + c] = uint8_t(40 + 17 * blob + 60 * c);
            rgba[4 * i + 3] = i % 9 == 0 ? 0 : 220;
        }
        dxy.reserve(xy.size());
        drgba.reserve(rgba.size());
        in.xy = dxy.get();
        in.rgba = drgba.get();
        in.n = n;
        in.pointSize = 3.0f, in.alpha = 0.3f;
        in.width = 320, in.height = 200;
        in.scale[0] = 0.9f, in.scale[1] = 1.2f, in.offset[0] = 0.02f;
        dout.reserve(size_t(in.width) * in.height * 4);
    }
    /// Copies the cells' positions and colours to the device.
    void upload() {
        ASSERT_EQ(cudaMemcpy(dxy.get(), xy.data(), xy.size() * 4, cudaMemcpyHostToDevice),
                  cudaSuccess);
        ASSERT_EQ(cudaMemcpy(drgba.get(), rgba.data(), rgba.size(), cudaMemcpyHostToDevice),
                  cudaSuccess);
    }
    /// The picture `splats` draws of the cells on the device.
    std::vector<uint8_t> picture(cuda::CudaSplats& splats) {
        splats.draw(in, dout.get());
        std::vector<uint8_t> got(size_t(in.width) * in.height * 4);
        EXPECT_EQ(cudaMemcpy(got.data(), dout.get(), got.size(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        return got;
    }
};

TEST(CudaSplats, AnUpdateIsTheWholePictureBitForBit) {
    SEPAL_REQUIRE_GPU();
    // One painter updates from picture to picture; a second draws each picture whole.
    const size_t n = 400000;
    BlobScene scene(n, 17);
    auto& xy = scene.xy;
    auto& rgba = scene.rgba;
    auto& in = scene.in;
    std::mt19937 rng(18);
    std::uniform_real_distribution<float> unit(-1.1f, 1.1f);
    cuda::CudaSplats live, whole;
    whole.setUpdates(false);
    // Draws with both painters and checks the live one's way (an update of `changed` cells, or
    // a whole picture when changed is n).
    auto drawAndCompare = [&](const char* what, size_t changed) {
        scene.upload();
        const auto got = scene.picture(live), want = scene.picture(whole);
        EXPECT_EQ(live.lastWasUpdate(), changed < n) << what;
        EXPECT_EQ(live.lastDrawnCells(), changed) << what;
        EXPECT_FALSE(whole.lastWasUpdate()) << what;
        size_t off = 0, shown = 0;
        for (size_t i = 0; i < got.size(); ++i) {
            off += got[i] != want[i];
            shown += i % 4 == 3 && want[i] > 0;
        }
        EXPECT_EQ(off, 0u) << what;
        EXPECT_GT(shown, size_t(in.width) * in.height / 8) << what;
    };
    drawAndCompare("the first picture of a view", n);
    drawAndCompare("the second, which keeps the cells as drawn", n);
    drawAndCompare("nothing changed", 0);
    // A training frame's slice: a 64th of the cells, in one range, jump anywhere (one to NaN,
    // some off the picture).
    const size_t slice = n / 64;
    for (size_t i = 1000; i < 1000 + slice; ++i) xy[2 * i] = unit(rng), xy[2 * i + 1] = unit(rng);
    xy[2 * 1001] = NAN;
    drawAndCompare("a slice re-projected", slice);
    // A drag: one cluster's cells move a few pixels (most stay in their windows' rims, some
    // do not).
    size_t dragged = 0;
    for (size_t i = 0; i < n; ++i)
        if ((i * 2654435761u) % 12 == 3) {
            xy[2 * i] += 0.004f * float(1 + i % 9);
            ++dragged;
        }
    drawAndCompare("a cluster dragged", dragged);
    // Recoloured cells that stay put (the coverage's sum does not move), gated out and back in.
    size_t recoloured = 0;
    for (size_t i = 5; i < n; i += 41, ++recoloured) {
        if (i % 9 == 0)
            rgba[4 * i + 3] = 220;  // back in the gate
        else if (i % 2)
            rgba[4 * i + 3] = 0;  // gated out
        else
            rgba[4 * i] ^= 0x5a;
    }
    drawAndCompare("cells recoloured and gated", recoloured);
    in.alpha = 0.8f;  // the opacity is applied after the sums
    drawAndCompare("another opacity", 0);
    for (size_t i = 0; i < n; i += 3) xy[2 * i + 1] += 0.01f;  // a third: a whole picture
    drawAndCompare("a third of the cells moved", n);
    xy[2 * 7] -= 0.2f;
    drawAndCompare("one cell after a whole picture", 1);
    in.scale[0] = 1.0f;  // zoomed: another view
    drawAndCompare("another view", n);
    drawAndCompare("that view again", n);
    xy[2 * 8] += 0.1f;
    drawAndCompare("one cell in that view", 1);
}

TEST(CudaSplats, WhileMostCellsMoveUpdatesBackOffAndComeBack) {
    SEPAL_REQUIRE_GPU();
    // Half the cells jump every picture at one view (a polish, a whole projection a frame): an
    // update gives up each time. With the backoff the painter soon stops trying (and keeping the
    // copy); without it every picture tries. Each picture is the whole picture's bits, and once
    // only a few cells change the updates come back.
    const size_t n = 100000, pictures = 40;
    BlobScene scene(n, 23);
    const std::vector<float> still = scene.xy;
    std::vector<float> jumped = still;
    for (size_t i = 0; i < n; i += 2) jumped[2 * i] = -jumped[2 * i];
    cuda::CudaSplats backingOff, trying, whole;
    trying.setBackoff(false);
    whole.setUpdates(false);
    auto drawAll = [&](const char* what) {
        scene.upload();
        const auto want = scene.picture(whole);
        EXPECT_TRUE(scene.picture(backingOff) == want) << what;
        EXPECT_TRUE(scene.picture(trying) == want) << what;
    };
    for (size_t p = 0; p < pictures; ++p) {
        scene.xy = p % 2 ? jumped : still;
        drawAll("half the cells jumped");
    }
    // Tries at pictures 2, 3, 5, 9, 17 and 33 (each failure k >= 2 leaves 2^(k-1) - 1 pictures
    // without the copy, then one keeps it); 38 without the backoff.
    EXPECT_EQ(trying.updatesTried(), pictures - 2);
    EXPECT_EQ(backingOff.updatesTried(), 6u);
    EXPECT_FALSE(backingOff.lastWasUpdate());
    // One cell moves a picture from now on: the backoff ends within 32 pictures.
    scene.xy = still;
    size_t until = 0;
    for (size_t p = 0; p < 40 && !backingOff.lastWasUpdate(); ++p, ++until) {
        scene.xy[2 * p] += 0.01f;
        drawAll("one cell moved");
    }
    EXPECT_TRUE(backingOff.lastWasUpdate());
    EXPECT_LE(until, 33u);
    EXPECT_EQ(backingOff.lastDrawnCells(), 1u);
    // Another view starts without a backoff: its third picture is an update.
    scene.xy = still;
    scene.in.scale[0] = 1.0f;
    for (int p = 0; p < 3; ++p) {
        scene.xy[2 * (100 + p)] += 0.01f;
        drawAll("another view");
    }
    EXPECT_TRUE(backingOff.lastWasUpdate());
}

}  // namespace
}  // namespace sepal::test
