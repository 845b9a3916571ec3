// The kernel registry's rules on shapes of a given device: they need no GPU, so they run
// wherever the CUDA backend is built.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "cuda/cuda_backend.h"
#include "cuda/kernel_registry.h"

namespace sepal::test {
namespace {

/// An H100 or H200: compute capability 9.0, 227 KB of shared memory per block.
constexpr cuda::DeviceLimits kHopper{9, 0, 232448};
/// A T4: compute capability 7.5, 64 KB per block, no TF32 or FP16 mma.sync of the kernels.
constexpr cuda::DeviceLimits kTuring{7, 5, 65536};

cuda::KernelShape shape(size_t d, int g, int k, size_t n = 200,
                        cuda::DeviceLimits device = kHopper) {
    cuda::KernelShape s;
    s.n = n;
    s.d = d;
    s.stride = cuda::paddedDim(d);
    s.g = g;
    s.topn = k;
    s.topnn = k < g ? k + 1 : k;
    s.device = device;
    return s;
}

std::string autoFor(const cuda::KernelShape& s) {
    return cuda::chooseKernel(nullptr, s).name;
}

std::string refusal(const char* kernel, const cuda::KernelShape& s) {
    return cuda::findKernel(kernel).refusal(s);
}

TEST(KernelRegistry, NamesAreUniqueAndEveryListFollowsTheRegistry) {
    std::set<std::string> names;
    for (const auto& e : cuda::kernelRegistry()) {
        EXPECT_TRUE(names.insert(e.name).second) << e.name;
        EXPECT_GT(std::string(e.description).size(), 10u) << e.name;
        EXPECT_NE(e.launch.project, nullptr) << e.name;
        if (e.launch.sideBySide) {
            EXPECT_NO_THROW(cuda::findKernel(e.launch.fallback)) << e.name;
        }
    }
    const auto listed = cuda::kernelNames();
    ASSERT_EQ(listed.size(), cuda::kernelRegistry().size() + 1);
    EXPECT_EQ(listed[0], "auto");
    for (size_t i = 0; i < cuda::kernelRegistry().size(); ++i)
        EXPECT_EQ(listed[i + 1], cuda::kernelRegistry()[i].name);
    try {
        cuda::findKernel("nonsense");
        ADD_FAILURE() << "an unknown kernel was found";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("'nonsense'"), std::string::npos) << m;
        for (const auto& name : listed) EXPECT_NE(m.find(name), std::string::npos) << m;
    }
}

/// The names of the kernels that take the shape: auto's candidates.
std::vector<std::string> candidatesFor(const cuda::KernelShape& s) {
    std::vector<std::string> names;
    for (const cuda::KernelEntry* e : cuda::kernelsTaking(s)) names.emplace_back(e->name);
    return names;
}

TEST(KernelRegistry, TheFixedRuleTakesTheFastestKernelOfTheHopperGrid) {
    // auto's fallback where it does not measure (too few points, a failed measurement:
    // auto_kernel.h); where it measures, CudaAutoKernel.* and CudaSplit.* check its choice.
    EXPECT_EQ(autoFor(shape(16, 1024, 8)), "tensor");
    EXPECT_EQ(autoFor(shape(32, 1024, 16)), "tensor+parts");
    EXPECT_EQ(autoFor(shape(64, 1024, 32)), "tensor+parts");  // 200 points: too few to split
    EXPECT_EQ(autoFor(shape(64, 1024, 32, size_t(1) << 18)), "tensor+split");  // the H100's
    EXPECT_EQ(autoFor(shape(64, 1024, 16, size_t(1) << 18)), "tensor+parts");
    EXPECT_EQ(autoFor(shape(64, 256, 32, size_t(1) << 18)), "tensor+parts");
    EXPECT_EQ(autoFor(shape(16, 256, 8)), "tensor+table");
    EXPECT_EQ(autoFor(shape(32, 256, 16)), "tensor+table");
    EXPECT_EQ(autoFor(shape(32, 256, 32)), "tensor+parts");
    EXPECT_EQ(autoFor(shape(64, 256, 8)), "tensor+parts");
    EXPECT_EQ(autoFor(shape(32, 64, 16)), "tensor+table");
    EXPECT_EQ(autoFor(shape(64, 64, 8)), "tensor+table");
    EXPECT_EQ(autoFor(shape(64, 64, 16)), "tensor+parts");
    EXPECT_EQ(autoFor(shape(64, 64, 32)), "fused");
    EXPECT_EQ(autoFor(shape(4, 1024, 16)), "fused");  // d <= 4: beyond the tensor kernels
    EXPECT_EQ(autoFor(shape(16, 256, 80)), "bitonic+registers");
    // Without tensor cores: the fused kernel.
    EXPECT_EQ(autoFor(shape(16, 1024, 8, 200, kTuring)), "fused");
    EXPECT_EQ(autoFor(shape(32, 256, 16, 200, kTuring)), "fused");
}

TEST(KernelRegistry, AutoWeighsEveryKernelThatTakesTheShape) {
    // d 64, g 1024, k 32: tensor+split and tensor+parts both take it (the H200 ran tensor+parts
    // faster, the H100 tensor+split), so auto must time both; the table does not fit.
    const std::vector<std::string> wide = {"tensor+split", "tensor+parts",      "tensor",
                                           "fused",        "bitonic+registers", "bitonic+aligned"};
    EXPECT_EQ(candidatesFor(shape(64, 1024, 32, size_t(1) << 20)), wide);
    const std::vector<std::string> headline = {
        "tensor+table", "tensor+split",      "tensor+parts",   "tensor",
        "fused",        "bitonic+registers", "bitonic+aligned"};
    EXPECT_EQ(candidatesFor(shape(32, 256, 16, size_t(1) << 20)), headline);
    // Without tensor cores, or beyond the fused kernel's lists: the rest, in the registry's order.
    const std::vector<std::string> turing = {"fused", "bitonic+registers", "bitonic+aligned"};
    EXPECT_EQ(candidatesFor(shape(32, 256, 16, 200, kTuring)), turing);
    const std::vector<std::string> bitonic = {"bitonic+registers", "bitonic+aligned"};
    EXPECT_EQ(candidatesFor(shape(16, 256, 80)), bitonic);
    EXPECT_TRUE(candidatesFor(shape(16, 4096, 2000)).empty());
    // The rule's pick is always among them.
    for (const auto& s : {shape(64, 1024, 32, size_t(1) << 20), shape(32, 256, 16),
                          shape(16, 256, 80), shape(32, 256, 16, 200, kTuring)}) {
        const auto names = candidatesFor(s);
        EXPECT_NE(std::find(names.begin(), names.end(), autoFor(s)), names.end()) << autoFor(s);
    }
}

TEST(KernelRegistry, RefusalsStateTheRealReason) {
    // d = 64 with 1024 landmarks on a GPU with tensor cores: shared memory, not the capability.
    const std::string hopper = refusal("tensor+table", shape(64, 1024, 8));
    EXPECT_NE(hopper.find("shared memory"), std::string::npos) << hopper;
    EXPECT_NE(hopper.find("227 KB"), std::string::npos) << hopper;
    EXPECT_EQ(hopper.find("compute capability"), std::string::npos) << hopper;
    // The same shape where the capability is the reason.
    const std::string turing = refusal("tensor+table", shape(64, 1024, 8, 200, kTuring));
    EXPECT_NE(turing.find("compute capability 8.0"), std::string::npos) << turing;
    EXPECT_NE(turing.find("7.5"), std::string::npos) << turing;
    // d = 64 with 256 landmarks fits; k = 20 does not.
    EXPECT_EQ(refusal("tensor+table", shape(64, 256, 16)), "");
    EXPECT_NE(refusal("tensor+table", shape(39, 200, 20)).find("k <= 16"), std::string::npos);
    EXPECT_NE(refusal("tensor", shape(3, 64, 8)).find("5 <= d <= 64"), std::string::npos);
    EXPECT_NE(refusal("tensor+parts", shape(32, 1024, 40)).find("k <= 32"), std::string::npos);
    EXPECT_NE(refusal("fused", shape(200, 64, 8)).find("d <= 128"), std::string::npos);
    EXPECT_NE(refusal("fused", shape(100, 300, 40)).find("k <= 32"), std::string::npos);
    EXPECT_NE(refusal("bitonic+aligned", shape(16, 4096, 1500)).find("k <= 1023"),
              std::string::npos);
    // The projector's message: the kernel, the reason, the shape, and what to use instead.
    try {
        cuda::chooseKernel(&cuda::findKernel("tensor+table"), shape(64, 1024, 8));
        ADD_FAILURE() << "tensor+table took d = 64, g = 1024";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(
            m.find("the tensor+table CUDA kernel cannot take d = 64, g = 1024, k = 8: " + hopper),
            std::string::npos)
            << m;
        EXPECT_NE(m.find("use --kernel auto or tensor+parts"), std::string::npos) << m;
    }
    // No kernel at all: every kernel's reason.
    EXPECT_THROW(cuda::chooseKernel(nullptr, shape(16, 4096, 2000)), InputError);
}

}  // namespace
}  // namespace sepal::test
