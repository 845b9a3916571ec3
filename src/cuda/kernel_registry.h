#pragma once
// The CUDA EmbedSOM kernels by name: one entry per kernel with its description, the shapes it
// supports (kernel_limits.h), where auto's fixed rule takes it, and how it launches. The
// projector's choice by name, auto's candidates (auto_kernel.h), kernelNames(), sepal-bench's
// list, the GPU tests' lists and the message for an unknown name all iterate this table.

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "cuda/embedsom_kernels.h"
#include "cuda/kernel_limits.h"

namespace sepal::cuda {

/// The landmark copy a tensor-core k-NN reads (TensorLandmarkBuffers::upload).
enum class TensorOrder {
    None,      ///< no tensor-core k-NN
    Shuffled,  ///< TF32 fragments in a fixed shuffled order (the tensor kernel)
    Indexed    ///< TF32 and FP16 fragments in index order (the resident and parts k-NNs)
};

/// How a kernel runs: one launch, or a k-NN that writes lists and a projection that reads them.
struct KernelLaunch {
    TensorOrder tensor = TensorOrder::None;  ///< the landmark copy it needs
    /// The k-NN phase (writes knnIdx/knnDist, kOut = topnn); null for a single kernel, which
    /// then writes the lists itself when args.out is null (CudaProjector::knnOnly).
    void (*knn)(const ProjectionArgs&, cudaStream_t) = nullptr;
    /// The projection from those lists, or the single kernel.
    void (*project)(const ProjectionArgs&, cudaStream_t) = nullptr;
    /// Runs knn and project side by side on two partitions of the multiprocessors over chunks
    /// of points (SmSplit); without the partitions, `fallback` runs instead.
    bool sideBySide = false;
    const char* fallback = nullptr;  ///< the kernel run when sideBySide cannot be
};

/// One CUDA kernel of the projector.
struct KernelEntry {
    const char* name;         ///< what --kernel takes ("tensor+table")
    const char* description;  ///< one line: what it does
    /// Why it cannot take the shape (a clause: "it needs ..."); empty when it can.
    std::string (*refusal)(const KernelShape&);
    /// Where auto's fixed rule takes it, among the shapes it supports (measured fastest on the
    /// H100, GPU_NOTES.md); the rule asks the entries in order and takes the first. auto follows
    /// the rule only where it does not measure (auto_kernel.h).
    bool (*autoTakes)(const KernelShape&);
    KernelLaunch launch;  ///< how it runs
};

/// Every kernel, in the order of auto's rule.
const std::vector<KernelEntry>& kernelRegistry();
/// The kernels that can take the shape (an empty refusal), in the registry's order: auto's
/// candidates.
std::vector<const KernelEntry*> kernelsTaking(const KernelShape& shape);
/// The entry called `name`; throws InputError listing the names when there is none.
const KernelEntry& findKernel(const std::string& name);
/// Whether the kernel's projection of this shape reads its pair terms from the table in global
/// memory (the list projection), where their layout by rank pays (pair_rank.h). The table
/// projection's launches of the list kernel over its exact-form queue are not counted: they keep
/// the triangular table.
bool projectsThroughLists(const KernelEntry& kernel, const KernelShape& shape);
/// "auto, tensor+table, tensor+split, ..., bitonic+aligned": what --kernel accepts.
std::string kernelNameList();
/// The kernel for the shape: `requested`, or auto's fixed rule's pick when it is null (the
/// measured choice is chooseAutoKernel's, auto_kernel.h). Throws InputError with the requested
/// kernel's reason (or every kernel's, when none supports the shape).
const KernelEntry& chooseKernel(const KernelEntry* requested, const KernelShape& shape);

}  // namespace sepal::cuda
