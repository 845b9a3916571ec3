#include "backend/backends.h"

#include "core/common/error.h"
#include "core/embedsom/embedsom.h"

#ifdef SEPAL_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace sepal {

bool builtWithCuda() {
#ifdef SEPAL_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

size_t gpuCount() {
#ifdef SEPAL_HAVE_CUDA
    return size_t(cuda::deviceCount());
#else
    return 0;
#endif
}

namespace {
#ifdef SEPAL_HAVE_CUDA
std::vector<int> graphDevicesOf(const BackendOptions& options) {
    if (!options.graphDevices.empty()) return options.graphDevices;
    if (options.device >= 0) return {options.device};
    return {};
}
#endif

Backend cpuBackend(std::string reason) {
    return {makeCpuProjector(),
            makeCpuNearestSearch(),
            makeCpuKnnGraphBuilder(),
            makeCpuQualityScorer(),
            "cpu",
            std::move(reason)};
}
}  // namespace

Backend makeBackend(const std::string& name, const BackendOptions& options) {
    if (name == "reference")
        return {makeReferenceProjector(),
                makeCpuNearestSearch(),
                makeCpuKnnGraphBuilder(),
                makeCpuQualityScorer(),
                "reference",
                "the plain reference implementation was asked for"};
    if (name == "cpu") return cpuBackend("the CPU backend was asked for");
    if (name == "cuda" || name == "auto") {
#ifdef SEPAL_HAVE_CUDA
        std::string why;
        if (options.device >= 0 && cuda::deviceCount() > 0) {
            try {
                cuda::useDevice(options.device);
            } catch (const InputError& e) {
                if (name == "cuda") throw;
                return cpuBackend(std::string("auto: ") + e.what() + "; using the CPU");
            }
        }
        if (cuda::deviceAvailable(&why)) {
            Backend b{cuda::makeCudaProjector(options.kernel),
                      cuda::makeCudaNearestSearch(),
                      cuda::makeCudaKnnGraphBuilder(graphDevicesOf(options)),
                      cuda::makeCudaQualityScorer(),
                      "cuda",
                      name == "auto" ? "auto: " + why : why};
            b.resident = cuda::residentOf(*b.projector);
            // The steps copy the cells the app's projector keeps on the device (the projector
            // lives as long as the backend that holds this factory).
            b.wholeData = [keeper = b.projector.get()](const TrainingCells& cells) {
                return cuda::makeCudaWholeDataSteps(cells, keeper);
            };
            b.polish = cuda::makeCudaPolishDevice();
            return b;
        }
        if (name == "cuda") throw InputError("the CUDA backend cannot run: " + why);
        return cpuBackend("auto: " + why + "; using the CPU");
#else
        if (name == "cuda")
            throw InputError("this Sepal was built without CUDA; use --backend cpu");
        return cpuBackend("auto: built without CUDA; using the CPU");
#endif
    }
    throw InputError("unknown backend '" + name + "': use reference, cpu, cuda or auto");
}

}  // namespace sepal
