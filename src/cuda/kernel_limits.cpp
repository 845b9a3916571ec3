#include "cuda/kernel_limits.h"

#include <cuda_runtime_api.h>

#include "cuda/nearest_landmark.h"

namespace sepal::cuda {

namespace {

std::string kilobytes(size_t bytes) {
    return std::to_string((bytes + 1023) / 1024) + " KB";
}

std::string capability(const DeviceLimits& device) {
    if (device.major == 0) return "no CUDA device answered";
    return "this GPU has " + std::to_string(device.major) + "." + std::to_string(device.minor);
}

/// The tensor-core k-NNs: `cores` (TF32 or FP16) need compute capability 8.0, and the
/// fragments take strides 8 to 64.
std::string tensorCoreRefusal(const KernelShape& s, const char* cores) {
    if (s.device.major < 8)
        return std::string("it needs ") + cores +
               " tensor cores, a GPU of compute capability 8.0 or later (" + capability(s.device) +
               ")";
    if (s.stride < kTensorMinStride || s.stride > kTensorMaxStride)
        return "it takes 5 <= d <= 64 (here d = " + std::to_string(s.d) + ")";
    return "";
}

/// Lists longer than maxList (k + 1 neighbours, or k when k = g) are beyond the kernel.
std::string listRefusal(const KernelShape& s, int maxList) {
    if (s.topnn <= maxList) return "";
    return "it takes k <= " + std::to_string(maxList - 1) + " (here k = " + std::to_string(s.topn) +
           ")";
}

/// A block needs `bytes` of shared memory for `what`; the device may allow fewer.
std::string sharedRefusal(const KernelShape& s, size_t bytes, const std::string& what) {
    if (bytes <= s.device.sharedBytes) return "";
    return what + ", which needs " + kilobytes(bytes) +
           " of shared memory per block where this GPU " + "allows " +
           kilobytes(s.device.sharedBytes);
}

/// The first non-empty reason.
template <class... Reasons>
std::string firstOf(Reasons&&... reasons) {
    std::string why;
    (void)((why = reasons(), !why.empty()) || ...);
    return why;
}

}  // namespace

const DeviceLimits& currentDeviceLimits() {
    static const DeviceLimits limits = [] {
        DeviceLimits l;
        int device = 0, shared = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&l.major, cudaDevAttrComputeCapabilityMajor, device) !=
                cudaSuccess ||
            cudaDeviceGetAttribute(&l.minor, cudaDevAttrComputeCapabilityMinor, device) !=
                cudaSuccess ||
            cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
                cudaSuccess) {
            (void)cudaGetLastError();
            return DeviceLimits{};
        }
        l.sharedBytes = size_t(shared);
        return l;
    }();
    return limits;
}

KernelShape shapeOf(const ProjectionArgs& a) {
    KernelShape s;
    s.n = a.n;
    s.d = size_t(a.dim);
    s.stride = a.stride;
    s.g = a.g;
    s.topn = a.topn;
    s.topnn = a.topnn;
    s.device = currentDeviceLimits();
    return s;
}

std::string fusedRefusal(const KernelShape& s) {
    if (s.stride > kFusedMaxStride)
        return "it keeps a point in registers: d <= " + std::to_string(kFusedMaxStride) +
               " (here d = " + std::to_string(s.d) + ")";
    if (s.stride == kFusedMaxStride && s.topnn > kFusedWideMaxList)
        return "with d > 64 it takes k <= " + std::to_string(kFusedWideMaxList - 1) +
               " (here d = " + std::to_string(s.d) + ", k = " + std::to_string(s.topn) + ")";
    return listRefusal(s, kFusedMaxList);
}

std::string tensorRefusal(const KernelShape& s) {
    return firstOf([&] { return tensorCoreRefusal(s, "TF32"); },
                   [&] { return listRefusal(s, kTensorMaxList); });
}

std::string residentKnnRefusal(const KernelShape& s) {
    return firstOf([&] { return tensorCoreRefusal(s, "TF32"); },
                   [&] { return listRefusal(s, kResidentMaxList); },
                   [&] {
                       return sharedRefusal(s, residentKnnSharedBytes(s.stride, s.g, s.topnn),
                                            "its k-NN holds all " + std::to_string(s.g) +
                                                " landmarks of d = " + std::to_string(s.d) +
                                                " in shared memory");
                   });
}

std::string partsKnnRefusal(const KernelShape& s) {
    return firstOf(
        [&] { return tensorCoreRefusal(s, "FP16"); }, [&] { return listRefusal(s, kPartsMaxList); },
        [&]() -> std::string {
            if (s.g <= kPartsMaxLandmarks) return "";
            return "it indexes landmarks in 16 bits: g <= " + std::to_string(kPartsMaxLandmarks) +
                   " (here g = " + std::to_string(s.g) + ")";
        },
        [&] {
            return sharedRefusal(
                s, partsKnnSharedBytes(s.stride, s.g, s.topnn),
                "its k-NN passes the landmarks through shared memory in parts of " +
                    std::to_string(kTensorPadding) + " or more at d = " + std::to_string(s.d));
        });
}

std::string tableProjectionRefusal(const KernelShape& s) {
    return firstOf(
        [&] { return listRefusal(s, kTableMaxList); },
        [&]() -> std::string {
            if (s.g <= kTableMaxLandmarks) return "";
            return "its projection addresses the pair table in 16 bits: g <= " +
                   std::to_string(kTableMaxLandmarks) + " (here g = " + std::to_string(s.g) + ")";
        },
        [&] {
            return sharedRefusal(s, tableProjectionSharedBytes(s.g, s.topnn),
                                 "its projection holds the pair table of " + std::to_string(s.g) +
                                     " landmarks in shared memory");
        });
}

std::string listProjectionRefusal(const KernelShape& s) {
    return listRefusal(s, kListMaxList);
}

std::string bitonicRefusal(const KernelShape& s) {
    return listRefusal(s, kBitonicMaxList);
}

std::string nearestRefusal(const KernelShape& s) {
    return firstOf([&] { return tensorCoreRefusal(s, "FP16"); },
                   [&]() -> std::string {
                       if (s.topnn == 1) return "";
                       return "it finds the nearest landmark alone: k = 1 (here k = " +
                              std::to_string(s.topn) + ")";
                   },
                   [&] {
                       return sharedRefusal(
                           s, nearestSharedBytes(s.stride, s.g),
                           "it passes the landmarks through shared memory in parts of " +
                               std::to_string(kNearestPadding) +
                               " beside its warps' rows at d = " + std::to_string(s.d));
                   });
}

}  // namespace sepal::cuda
