#include "cuda/auto_kernel.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "cuda/cuda_error.h"
#include "cuda/kernel_measure.h"

namespace sepal::cuda {

namespace {

/// One measurement at a time in the process, and the classes whose measurement failed.
struct MeasureGuard {
    std::mutex mutex;
    std::set<std::string> failed;         ///< device key + class key
    std::set<std::string> failedOnCells;  ///< the same, for the timings on the caller's cells
};

MeasureGuard& measureGuard() {
    static MeasureGuard guard;
    return guard;
}

/// The candidate called `name`, or null when none is (a choice kept by another Sepal).
const KernelEntry* candidateNamed(const std::vector<const KernelEntry*>& candidates,
                                  const std::string& name) {
    for (const KernelEntry* e : candidates)
        if (name == e->name) return e;
    return nullptr;
}

/// The fastest candidate of a measurement's `timings` (KernelChoice::kernel's name); throws
/// when none of them ran.
const KernelEntry& fastestRun(const std::vector<KernelTiming>& timings,
                              const std::vector<const KernelEntry*>& candidates) {
    const KernelEntry* fastest = candidateNamed(candidates, fastestKernel(timings));
    if (!fastest) throw std::runtime_error("no candidate ran");
    return *fastest;
}

/// Notes that a measurement for `key` (device and class) failed; true the first time, when the
/// caller warns.
bool firstFailure(std::set<std::string>& failed, const std::string& key) {
    std::lock_guard<std::mutex> lock(measureGuard().mutex);
    return failed.insert(key).second;
}

/// `pick` from a kept choice, when it names one of the candidates; `source` says which kind.
bool takeKept(const std::optional<KernelChoice>& kept,
              const std::vector<const KernelEntry*>& candidates, AutoPick& pick,
              const char* source = "cached") {
    const KernelEntry* e = kept ? candidateNamed(candidates, kept->kernel) : nullptr;
    if (!e) return false;
    pick.kernel = e;
    pick.how.source = source;
    pick.how.timings = kept->timings;
    return true;
}

/// auto's kernel for the shape's class: kept, else measured on the class's sample, else the
/// rule (chooseAutoKernel without the caller's cells).
AutoPick chooseForClass(const KernelShape& shape, float adjust, KernelChoiceCache& cache) {
    AutoPick pick;
    pick.kernel = &chooseKernel(nullptr, shape);  // throws when no kernel takes the shape
    pick.how.source = "rule";
    const std::vector<const KernelEntry*> candidates = kernelsTaking(shape);
    const auto c = kernelShapeClass(shape.n, shape.d, shape.g, shape.topn, adjust);
    if (candidates.size() < 2 || !c) return pick;
    const std::string shapeKey = kernelShapeKey(*c);
    std::string device;
    // An error of the caller's earlier work, found by the wait below: it is the caller's to see
    // as it is, not a failed measurement.
    cudaError_t earlier = cudaSuccess;
    try {
        device = currentDeviceKey();
        if (takeKept(cache.find(device, shapeKey), candidates, pick)) {
            pick.how.shapeClass = shapeKey;
            return pick;
        }
        MeasureGuard& guard = measureGuard();
        std::lock_guard<std::mutex> lock(guard.mutex);
        // Another thread may have measured the class while this one waited.
        if (takeKept(cache.find(device, shapeKey), candidates, pick)) {
            pick.how.shapeClass = shapeKey;
            return pick;
        }
        if (guard.failed.count(device + "\n" + shapeKey)) return pick;
        // The work in flight (the caller's own among it) would share the device with the
        // candidates and slow some of them.
        earlier = cudaDeviceSynchronize();
        if (earlier == cudaSuccess) {
            KernelChoice measured;
            measured.points = c->points;
            measured.timings = timeKernels(candidates, *c, adjust);
            pick.kernel = &fastestRun(measured.timings, candidates);
            measured.kernel = pick.kernel->name;
            cache.store(device, shapeKey, measured);
            pick.how = {"measured", shapeKey, measured.timings};
        }
    } catch (const std::exception& e) {
        if (firstFailure(measureGuard().failed, device + "\n" + shapeKey))
            std::fprintf(stderr,
                         "sepal: warning: auto could not time the CUDA kernels for %s (%s); it "
                         "takes %s by its fixed rule\n",
                         shapeKey.c_str(), e.what(), pick.kernel->name);
        pick.how = {"rule", "", {}};
    }
    SEPAL_CUDA_CHECK(earlier);
    return pick;
}

/// `pick` (the class's choice), or the faster of it and the class's close runner-up timed on
/// the caller's cells (see auto_kernel.h).
AutoPick settleOnOwnCells(AutoPick pick, const KernelShape& shape, float adjust,
                          KernelChoiceCache& cache, const OwnCells& ownCells) {
    const std::string runnerUpName = closeRunnerUp(pick.how.timings, kCloseCall);
    if (runnerUpName.empty()) return pick;
    const std::vector<const KernelEntry*> candidates = kernelsTaking(shape);
    const KernelEntry* runnerUp = candidateNamed(candidates, runnerUpName);
    const auto c = kernelShapeClass(shape.n, shape.d, shape.g, shape.topn, adjust);
    if (!runnerUp || !c) return pick;
    const bool canTime = ownCells.count >= c->points && ownCells.take;
    const std::string& shapeKey = pick.how.shapeClass;
    std::string device;
    try {
        device = currentDeviceKey();
        if (takeKept(cache.findOnCells(device, shapeKey), candidates, pick, "own-cells"))
            return pick;
        // Too few cells at hand (a chunk): nothing to wait for, the class's choice stands.
        if (!canTime) return pick;
        MeasureGuard& guard = measureGuard();
        std::lock_guard<std::mutex> lock(guard.mutex);
        if (takeKept(cache.findOnCells(device, shapeKey), candidates, pick, "own-cells"))
            return pick;
        if (guard.failedOnCells.count(device + "\n" + shapeKey)) return pick;
        // An error of the caller's earlier work: the caller's next check reports it.
        if (cudaDeviceSynchronize() != cudaSuccess) return pick;
        const KernelSample cells = ownCells.take(c->points);
        KernelChoice onCells;
        onCells.points = c->points;
        onCells.timings = timeKernels({pick.kernel, runnerUp}, cells, c->k, adjust);
        const KernelEntry& fastest = fastestRun(onCells.timings, candidates);
        onCells.kernel = fastest.name;
        cache.storeOnCells(device, shapeKey, onCells);
        pick.kernel = &fastest;
        pick.how = {"own-cells", shapeKey, onCells.timings};
    } catch (const std::exception& e) {
        if (firstFailure(measureGuard().failedOnCells, device + "\n" + shapeKey))
            std::fprintf(stderr,
                         "sepal: warning: auto could not time %s and %s on the cells for %s (%s); "
                         "it keeps %s\n",
                         pick.kernel->name, runnerUp->name, shapeKey.c_str(), e.what(),
                         pick.kernel->name);
    }
    return pick;
}

}  // namespace

std::string currentDeviceKey() {
    static std::mutex mutex;
    static std::map<int, std::string> keys;  // by device ordinal: the properties take a while
    int device = 0;
    SEPAL_CUDA_CHECK(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(mutex);
    if (auto k = keys.find(device); k != keys.end()) return k->second;
    cudaDeviceProp prop{};
    SEPAL_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    int driver = 0, runtime = 0;
    SEPAL_CUDA_CHECK(cudaDriverGetVersion(&driver));
    SEPAL_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    return keys[device] = kernelDeviceKey(prop.name, prop.major, prop.minor,
                                          prop.multiProcessorCount, driver, runtime);
}

KernelChoiceCache& processKernelCache() {
    static KernelChoiceCache cache(kernelCachePathFromEnvironment());
    return cache;
}

AutoPick chooseAutoKernel(const KernelShape& shape, float adjust, KernelChoiceCache& cache,
                          const OwnCells& ownCells) {
    const AutoPick pick = chooseForClass(shape, adjust, cache);
    // The rule's pick has no class: nothing was measured to weigh.
    if (!ownCells.take || pick.how.shapeClass.empty()) return pick;
    return settleOnOwnCells(pick, shape, adjust, cache, ownCells);
}

}  // namespace sepal::cuda
