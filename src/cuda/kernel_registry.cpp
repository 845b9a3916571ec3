#include "cuda/kernel_registry.h"

#include "core/common/error.h"

namespace sepal::cuda {

namespace {

/// auto takes tensor+split from this many points (at d = 64, g = 1024, k = 32 it lost below).
constexpr size_t kSplitMinPoints = size_t(1) << 18;

/// tensor+parts' projection: the pair table in shared memory where it fits, else the lists'.
void projectParts(const ProjectionArgs& a, cudaStream_t stream) {
    if (tableProjectionRefusal(shapeOf(a)).empty())
        launchProjectTable(a, stream);
    else
        launchProjectLists(a, stream);
}

std::string tableRefusal(const KernelShape& s) {
    const std::string knn = residentKnnRefusal(s);
    return knn.empty() ? tableProjectionRefusal(s) : knn;
}

std::string partsRefusal(const KernelShape& s) {
    const std::string knn = partsKnnRefusal(s);
    if (!knn.empty() || tableProjectionRefusal(s).empty()) return knn;
    return listProjectionRefusal(s);
}

std::string splitRefusal(const KernelShape& s) {
    const std::string knn = partsKnnRefusal(s);
    return knn.empty() ? listProjectionRefusal(s) : knn;
}

// auto's fixed rule, from the H100's grid (GPU_NOTES.md): tensor+table where it applies with d <=
// 32 (or d = 64 with few landmarks and k = 8); tensor+parts with 256 landmarks or more (or d = 64
// and k <= 16), but for k = 8 with 1024 landmarks and d <= 32, where the tensor kernel is
// faster; tensor+split instead of tensor+parts with 1024 landmarks or more and k + 1 > 17, where
// the list projection waits on L2 for its pair terms, when there are enough points to overlap
// the phases (with 256 landmarks, or k <= 16, it lost); fused for the rest (k = 32 with 64
// landmarks, d <= 4 or d > 64); the bitonic k-NN beyond the fused kernel's lists.
bool autoTable(const KernelShape& s) {
    return s.stride <= 32 || (s.g < 256 && s.topnn <= 9);
}

bool autoParts(const KernelShape& s) {
    const bool tensorFaster = s.stride <= 32 && s.g >= 1024 && s.topnn <= 9;
    return (s.g >= 256 || (s.stride >= 64 && s.topnn <= 17)) && !tensorFaster;
}

bool autoSplit(const KernelShape& s) {
    return autoParts(s) && s.g >= 1024 && s.topnn > 17 && s.n >= kSplitMinPoints;
}

bool autoTensor(const KernelShape& s) {
    return s.g >= 1024 || (s.g >= 256 && s.topnn <= 9);
}

bool always(const KernelShape&) {
    return true;
}

bool never(const KernelShape&) {
    return false;
}

std::string describe(const KernelShape& s) {
    return "d = " + std::to_string(s.d) + ", g = " + std::to_string(s.g) +
           ", k = " + std::to_string(s.topn);
}

const KernelEntry* autoPick(const KernelShape& s) {
    for (const KernelEntry& e : kernelRegistry())
        if (e.autoTakes(s) && e.refusal(s).empty()) return &e;
    return nullptr;
}

}  // namespace

const std::vector<KernelEntry>& kernelRegistry() {
    static const std::vector<KernelEntry> entries = {
        {"tensor+table",
         "resident TF32 k-NN with every landmark in shared memory, then the pair table in shared "
         "memory",
         tableRefusal,
         autoTable,
         {TensorOrder::Indexed, launchResidentKnn, launchProjectTable}},
        {"tensor+split",
         "tensor+parts' k-NN and list projection side by side on two partitions of the "
         "multiprocessors",
         splitRefusal,
         autoSplit,
         {TensorOrder::Indexed, launchPartsKnn, launchProjectLists, true, "tensor+parts"}},
        {"tensor+parts",
         "FP16 k-NN with the landmarks through shared memory in parts, then the table or list "
         "projection",
         partsRefusal,
         autoParts,
         {TensorOrder::Indexed, launchPartsKnn, projectParts}},
        {"tensor",
         "one kernel: TF32 tensor-core candidates, exact re-rank, the fused projection",
         tensorRefusal,
         autoTensor,
         {TensorOrder::Shuffled, nullptr, launchTensor}},
        {"fused",
         "one kernel: a thread per point, landmarks streamed through shared memory, register "
         "top-k",
         fusedRefusal,
         always,
         {TensorOrder::None, nullptr, launchFused}},
        {"bitonic+registers",
         "the published baseline: bitonic k-NN, then 2x2 pairs per lane",
         bitonicRefusal,
         always,
         {TensorOrder::None, launchBitonicKnn, launchProjectRegisters}},
        {"bitonic+aligned",
         "the published baseline: bitonic k-NN, then one pair per lane",
         bitonicRefusal,
         never,
         {TensorOrder::None, launchBitonicKnn, launchProjectAligned}},
    };
    return entries;
}

std::vector<const KernelEntry*> kernelsTaking(const KernelShape& shape) {
    std::vector<const KernelEntry*> taking;
    for (const KernelEntry& e : kernelRegistry())
        if (e.refusal(shape).empty()) taking.push_back(&e);
    return taking;
}

bool projectsThroughLists(const KernelEntry& kernel, const KernelShape& shape) {
    const auto project = kernel.launch.project;
    return project == launchProjectLists ||
           (project == projectParts && !tableProjectionRefusal(shape).empty());
}

std::string kernelNameList() {
    std::string names = "auto";
    for (const KernelEntry& e : kernelRegistry()) names += std::string(", ") + e.name;
    return names;
}

const KernelEntry& findKernel(const std::string& name) {
    for (const KernelEntry& e : kernelRegistry())
        if (name == e.name) return e;
    throw InputError("unknown CUDA kernel '" + name + "': use one of " + kernelNameList());
}

const KernelEntry& chooseKernel(const KernelEntry* requested, const KernelShape& shape) {
    if (requested) {
        const std::string why = requested->refusal(shape);
        if (why.empty()) return *requested;
        const KernelEntry* pick = autoPick(shape);
        throw InputError(std::string("the ") + requested->name + " CUDA kernel cannot take " +
                         describe(shape) + ": " + why + "; " +
                         (pick ? std::string("use --kernel auto or ") + pick->name
                               : std::string("no CUDA kernel can: use --backend cpu")));
    }
    if (const KernelEntry* pick = autoPick(shape)) return *pick;
    std::string reasons;
    for (const KernelEntry& e : kernelRegistry())
        reasons += std::string("; ") + e.name + ": " + e.refusal(shape);
    throw InputError("no CUDA kernel can take " + describe(shape) + reasons +
                     "; use --backend cpu");
}

}  // namespace sepal::cuda
