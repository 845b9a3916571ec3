#include "cuda/kernel_measure.h"

#include <algorithm>
#include <string>

#include "cuda/cuda_projector.h"

namespace sepal::cuda {

namespace {

/// Timed runs per candidate (the median counts).
constexpr int kTimedRuns = 5;
/// A candidate whose first timed run is this many times the best median so far stops there.
constexpr double kDropFactor = 2.0;

double medianOf(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

std::vector<KernelTiming> timeKernels(const std::vector<const KernelEntry*>& candidates,
                                      const KernelSample& sample, int k, float adjust) {
    const size_t d = sample.model.dim;
    const size_t n = d > 0 ? sample.points.size() / d : 0;
    EmbedParams params;
    params.k = k;
    params.adjust = adjust;
    std::vector<KernelTiming> timings;
    double best = 0;
    for (const KernelEntry* entry : candidates) {
        // A projector of its own: the kernel named, the sample resident, its buffers freed after.
        CudaProjector projector(entry->name);
        projector.enableTiming(true);
        projector.setPoints(sample.points.data(), n, d);
        float* out = projector.ownPositions();
        projector.projectToDevice(sample.model, params, out);
        if (projector.lastKernelName() != entry->name) continue;
        std::vector<double> runs;
        for (int r = 0; r < kTimedRuns; ++r) {
            projector.projectToDevice(sample.model, params, out);
            runs.push_back(projector.lastTimes().totalMs);
            if (r == 0 && best > 0 && runs[0] > kDropFactor * best) break;
        }
        const double ms = medianOf(runs);
        timings.push_back({entry->name, ms});
        if (best == 0 || ms < best) best = ms;
    }
    return timings;
}

std::vector<KernelTiming> timeKernels(const std::vector<const KernelEntry*>& candidates,
                                      const KernelShapeClass& c, float adjust) {
    return timeKernels(candidates, makeKernelSample(c.points, c.d, size_t(c.g)), c.k, adjust);
}

}  // namespace sepal::cuda
