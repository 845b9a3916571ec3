#include "cuda/cuda_backend.h"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "core/common/error.h"
#include "cuda/cuda_projector.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/kernel_registry.h"

namespace sepal::cuda {

bool deviceAvailable(std::string* why) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        if (why)
            *why = e != cudaSuccess ? std::string("no CUDA device (") + cudaGetErrorString(e) +
                                          ", error " + std::to_string(int(e)) + ")"
                                    : std::string("no CUDA device found");
        return false;
    }
    cudaDeviceProp prop{};
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, current) != cudaSuccess) {
        (void)cudaGetLastError();
        if (why) *why = "the CUDA device does not answer";
        return false;
    }
    // A tiny launch proves that this build has code for the device's architecture.
    try {
        launchPadRows(nullptr, 0, 1, nullptr, 4, nullptr);
        void* raw = nullptr;
        if (cudaMalloc(&raw, 4 * sizeof(float)) != cudaSuccess) {
            (void)cudaGetLastError();
            if (why) *why = std::string("the CUDA device ") + prop.name + " has no free memory";
            return false;
        }
        float* probe = static_cast<float*>(raw);
        launchPadRows(probe, 1, 1, probe, 1, nullptr);
        const cudaError_t run = cudaDeviceSynchronize();
        cudaFree(probe);
        if (run != cudaSuccess) {
            (void)cudaGetLastError();
            if (why)
                *why = std::string("the CUDA device ") + prop.name +
                       " cannot run Sepal's kernels (" + cudaGetErrorString(run) + ")";
            return false;
        }
    } catch (const std::exception& ex) {
        if (why) *why = ex.what();
        return false;
    }
    if (why) {
        char text[256];
        std::snprintf(text, sizeof text, "CUDA device %s (sm_%d%d, %.1f GiB)", prop.name,
                      prop.major, prop.minor, double(prop.totalGlobalMem) / (1 << 30));
        *why = text;
    }
    return true;
}

int deviceCount() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

void useDevice(int device) {
    const cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        throw InputError("CUDA device " + std::to_string(device) + " cannot be used (" +
                         cudaGetErrorString(e) + ")");
    }
}

ResidentProjector* residentOf(Projector& projector) {
    return dynamic_cast<CudaProjector*>(&projector);
}

std::unique_ptr<Projector> makeCudaProjector(const std::string& kernel) {
    return std::make_unique<CudaProjector>(kernel);
}

std::vector<std::string> kernelNames() {
    std::vector<std::string> names{"auto"};
    for (const KernelEntry& e : kernelRegistry()) names.emplace_back(e.name);
    return names;
}

}  // namespace sepal::cuda
