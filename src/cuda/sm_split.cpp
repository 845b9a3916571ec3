#include "cuda/sm_split.h"

#include <cuda.h>

#include <algorithm>
#include <map>
#include <utility>

#include "cuda/cuda_error.h"

namespace sepal::cuda {
namespace {

// The driver's green-context functions, looked up through the runtime so that Sepal needs no
// link to libcuda (and runs, without the split, on drivers that lack them).
struct Driver {
    decltype(&cuDeviceGet) deviceGet = nullptr;
    decltype(&cuDeviceGetDevResource) getResource = nullptr;
    decltype(&cuDevSmResourceSplitByCount) splitByCount = nullptr;
    decltype(&cuDevResourceGenerateDesc) generateDesc = nullptr;
    decltype(&cuGreenCtxCreate) greenCreate = nullptr;
    decltype(&cuGreenCtxDestroy) greenDestroy = nullptr;
    decltype(&cuGreenCtxStreamCreate) streamCreate = nullptr;
    decltype(&cuStreamDestroy) streamDestroy = nullptr;
    decltype(&cuCtxFromGreenCtx) fromGreen = nullptr;
    decltype(&cuCtxPushCurrent) push = nullptr;
    decltype(&cuCtxPopCurrent) pop = nullptr;
    decltype(&cuEventCreate) eventCreate = nullptr;
    decltype(&cuEventDestroy) eventDestroy = nullptr;

    /// Looks every function up; false (with the missing name in *missing) when one is absent.
    bool load(std::string* missing) {
        return find("cuDeviceGet", deviceGet, missing) &&
               find("cuDeviceGetDevResource", getResource, missing) &&
               find("cuDevSmResourceSplitByCount", splitByCount, missing) &&
               find("cuDevResourceGenerateDesc", generateDesc, missing) &&
               find("cuGreenCtxCreate", greenCreate, missing) &&
               find("cuGreenCtxDestroy", greenDestroy, missing) &&
               find("cuGreenCtxStreamCreate", streamCreate, missing) &&
               find("cuStreamDestroy", streamDestroy, missing) &&
               find("cuCtxFromGreenCtx", fromGreen, missing) &&
               find("cuCtxPushCurrent", push, missing) && find("cuCtxPopCurrent", pop, missing) &&
               find("cuEventCreate", eventCreate, missing) &&
               find("cuEventDestroy", eventDestroy, missing);
    }

  private:
    template <class F>
    static bool find(const char* name, F& fn, std::string* missing) {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion(name, &p, CUDA_VERSION, cudaEnableDefault, &found) !=
                cudaSuccess ||
            found != cudaDriverEntryPointSuccess || p == nullptr) {
            (void)cudaGetLastError();
            *missing = name;
            return false;
        }
        fn = reinterpret_cast<F>(p);
        return true;
    }
};

}  // namespace

struct SmSplit::Impl {
    Driver drv;
    CUgreenCtx contexts[2] = {nullptr, nullptr};
    CUstream streams[2] = {nullptr, nullptr};
    int sms[2] = {0, 0};
    std::map<std::pair<int, int>, CUevent> events;

    ~Impl() {
        for (auto& [key, e] : events) drv.eventDestroy(e);
        for (CUstream s : streams)
            if (s) drv.streamDestroy(s);
        for (CUgreenCtx c : contexts)
            if (c) drv.greenDestroy(c);
    }
};

SmSplit::SmSplit(std::unique_ptr<Impl> impl) : m(std::move(impl)) {}
SmSplit::~SmSplit() = default;

std::unique_ptr<SmSplit> SmSplit::create(double firstShare, std::string* whyNot) {
    auto impl = std::make_unique<Impl>();
    Driver& drv = impl->drv;
    std::string missing;
    if (!drv.load(&missing)) {
        *whyNot = "the CUDA driver has no green contexts (" + missing + ")";
        return nullptr;
    }
    int ordinal = 0;
    SEPAL_CUDA_CHECK(cudaGetDevice(&ordinal));
    SEPAL_CUDA_CHECK(cudaFree(nullptr));  // the primary context exists before green ones
    CUdevice device = 0;
    CUdevResource all{}, rest{}, first[1]{};
    if (drv.deviceGet(&device, ordinal) != CUDA_SUCCESS ||
        drv.getResource(device, &all, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS) {
        *whyNot = "the driver did not tell the device's multiprocessors";
        return nullptr;
    }
    // Partitions come in multiples of the co-scheduled alignment, at least the minimum size.
    const unsigned count = all.sm.smCount;
    const unsigned align = std::max(1u, all.sm.smCoscheduledAlignment);
    const unsigned least = std::max(align, all.sm.minSmPartitionSize);
    const unsigned wanted = unsigned(firstShare * count) / align * align;
    const unsigned firstSms = std::max(least, wanted);
    unsigned groups = 1;
    if (count < firstSms + least ||
        drv.splitByCount(first, &groups, &all, &rest, 0, firstSms) != CUDA_SUCCESS || groups != 1 ||
        rest.sm.smCount == 0) {
        *whyNot = "the device's " + std::to_string(count) +
                  " multiprocessors could not be split into " + std::to_string(firstSms) +
                  " and the rest";
        return nullptr;
    }
    CUdevResource* parts[2] = {&first[0], &rest};
    for (int i = 0; i < 2; ++i) {
        CUdevResourceDesc desc = nullptr;
        if (drv.generateDesc(&desc, parts[i], 1) != CUDA_SUCCESS ||
            drv.greenCreate(&impl->contexts[i], desc, device, CU_GREEN_CTX_DEFAULT_STREAM) !=
                CUDA_SUCCESS ||
            drv.streamCreate(&impl->streams[i], impl->contexts[i], CU_STREAM_NON_BLOCKING, 0) !=
                CUDA_SUCCESS) {
            *whyNot = "a green context of " + std::to_string(parts[i]->sm.smCount) +
                      " multiprocessors could not be made";
            return nullptr;
        }
        impl->sms[i] = int(parts[i]->sm.smCount);
    }
    return std::unique_ptr<SmSplit>(new SmSplit(std::move(impl)));
}

cudaStream_t SmSplit::stream(int i) const {
    return reinterpret_cast<cudaStream_t>(m->streams[i]);
}

int SmSplit::multiprocessors(int i) const {
    return m->sms[i];
}

cudaEvent_t SmSplit::event(int i, int slot) {
    CUevent& e = m->events[{i, slot}];
    if (!e) {
        // Events belong to the context current at their creation: partition i's.
        CUcontext context = nullptr, previous = nullptr;
        CUresult r = m->drv.fromGreen(&context, m->contexts[i]);
        if (r == CUDA_SUCCESS) r = m->drv.push(context);
        if (r == CUDA_SUCCESS) {
            r = m->drv.eventCreate(&e, CU_EVENT_DEFAULT);
            m->drv.pop(&previous);
        }
        if (r != CUDA_SUCCESS) {
            m->events.erase({i, slot});
            throw CudaError(cudaErrorUnknown, "creating an event of a green context", __FILE__,
                            __LINE__);
        }
    }
    return reinterpret_cast<cudaEvent_t>(e);
}

}  // namespace sepal::cuda
