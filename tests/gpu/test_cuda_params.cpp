// The CUDA projector's parameters follow core's rules (validateParams, resolveK): the same k for
// small models and the same InputError, before any CUDA work, as the CPU backend.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/embedsom/embedsom.h"
#include "cuda/cuda_projector.h"
#include "cuda/kernel_registry.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

/// The shape the projector hands the registry for these points and parameters.
cuda::KernelShape shapeFor(size_t n, size_t d, size_t g, const EmbedParams& params) {
    cuda::KernelShape s;
    s.n = n;
    s.d = d;
    s.stride = cuda::paddedDim(d);
    s.g = int(g);
    s.topn = resolveK(params, g);
    s.topnn = size_t(s.topn) < g ? s.topn + 1 : s.topn;
    s.device = cuda::currentDeviceLimits();
    return s;
}

/// The CPU backend's InputError message for these inputs ("" when it accepts them).
std::string cpuMessage(const std::vector<float>& x, size_t n, size_t d, const LandmarkModel& model,
                       const EmbedParams& params) {
    std::vector<float> y(n * 2);
    try {
        makeCpuProjector()->project(x.data(), n, d, model, params, y.data());
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(CudaParams, DefaultKForFourToEightLandmarksMatchesTheCpu) {
    // k = 0 with 4 to 8 landmarks: floor(1 + sqrt(g)) = 3, which core raises to 4.
    SEPAL_REQUIRE_GPU();
    const size_t n = 600, d = 16;
    const auto x = randomPoints(n, d, 51, 3);
    const EmbedParams params;  // k = 0
    for (size_t g = 4; g <= 8; ++g) {
        const LandmarkModel model = sampleModel(x, n, d, g, 52 + uint32_t(g));
        std::vector<float> cpu(n * 2);
        makeCpuProjector()->project(x.data(), n, d, model, params, cpu.data());
        const double extent = extentOf(model.low);
        int ran = 0;
        for (const auto& entry : cuda::kernelRegistry()) {
            const std::string why = entry.refusal(shapeFor(n, d, g, params));
            if (!why.empty()) {  // a GPU older than compute capability 8.0
                std::printf("g = %zu: %s declines: %s\n", g, entry.name, why.c_str());
                continue;
            }
            cuda::CudaProjector projector(entry.name);
            std::vector<float> y(n * 2, NAN);
            ASSERT_NO_THROW(projector.project(x.data(), n, d, model, params, y.data()))
                << entry.name << ", g = " << g;
            if (!entry.launch.sideBySide)  // tensor+split may run as its fallback
                EXPECT_EQ(projector.lastKernel(), entry.name);
            const auto err = pointErrors(y, cpu);
            EXPECT_LE(err.back(), 1e-3 * extent) << entry.name << ", g = " << g;
            EXPECT_LE(err[err.size() / 2], 1e-5 * extent) << entry.name << ", g = " << g;
            ++ran;
        }
        EXPECT_GE(ran, 3) << "g = " << g;  // fused and the bitonic baselines run anywhere
        cuda::CudaProjector automatic("auto");
        std::vector<float> y(n * 2, NAN);
        EXPECT_NO_THROW(automatic.project(x.data(), n, d, model, params, y.data())) << g;
    }
}

TEST(CudaParams, BadParametersThrowTheCpuInputErrorBeforeAnyWork) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 100, d = 16, g = 30;
    const auto x = randomPoints(n, d, 61);
    const LandmarkModel model = sampleModel(x, n, d, g, 62);
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<EmbedParams> bad(9);
    bad[0].smooth = inf;
    bad[1].smooth = -inf;
    bad[2].smooth = std::nanf("");
    bad[3].smooth = -3.5f;
    bad[4].adjust = inf;
    bad[5].adjust = -1.0f;
    bad[6].k = 3;
    bad[7].k = int(g) + 1;
    bad[8].k = -1;
    std::vector<std::string> kernels{"auto"};
    for (const auto& entry : cuda::kernelRegistry()) kernels.emplace_back(entry.name);
    std::vector<float> y(n * 2);
    for (const EmbedParams& p : bad) {
        const std::string expected = cpuMessage(x, n, d, model, p);
        ASSERT_FALSE(expected.empty()) << "the CPU accepted k = " << p.k
                                       << ", smooth = " << p.smooth << ", adjust = " << p.adjust;
        for (const std::string& kernel : kernels) {
            // Streamed, resident and k-NN only: InputError (not CudaError), the CPU's words.
            cuda::CudaProjector projector(kernel);
            try {
                projector.project(x.data(), n, d, model, p, y.data());
                ADD_FAILURE() << kernel << " accepted: " << expected;
            } catch (const InputError& e) {
                EXPECT_EQ(std::string(e.what()), expected) << kernel;
            }
            EXPECT_EQ(projector.lastKernel(), "") << kernel << ": a kernel ran";
            projector.setPoints(x.data(), n, d);
            try {
                projector.projectToHost(model, p, y.data());
                ADD_FAILURE() << kernel << " accepted (resident): " << expected;
            } catch (const InputError& e) {
                EXPECT_EQ(std::string(e.what()), expected) << kernel << " (resident)";
            }
            EXPECT_THROW(projector.knnOnly(model, p), InputError) << kernel;
            EXPECT_EQ(projector.lastKernel(), "") << kernel << ": a kernel ran";
        }
    }
    // Too few landmarks for the default k: the CPU's message too.
    const LandmarkModel three = sampleModel(x, n, d, 3, 63);
    const std::string expected = cpuMessage(x, n, d, three, {});
    ASSERT_FALSE(expected.empty());
    cuda::CudaProjector projector("auto");
    try {
        projector.project(x.data(), n, d, three, {}, y.data());
        ADD_FAILURE() << "3 landmarks accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), expected);
    }
}

TEST(CudaParams, ARefusedShapeSaysItsRealReason) {
    // tensor+table at d = 64 with 1024 landmarks: on a GPU with tensor cores the landmarks do not
    // fit in shared memory, and that is what the error must say.
    SEPAL_REQUIRE_GPU();
    const size_t n = 64, d = 64, g = 1024;
    const auto x = randomPoints(n, d, 71);
    const LandmarkModel model = sampleModel(x, n, d, g, 72);
    EmbedParams params;
    params.k = 8;
    cuda::CudaProjector projector("tensor+table");
    std::vector<float> y(n * 2);
    std::string message;
    try {
        projector.project(x.data(), n, d, model, params, y.data());
    } catch (const InputError& e) {
        message = e.what();
    }
    ASSERT_FALSE(message.empty()) << "tensor+table took d = 64, g = 1024";
    EXPECT_NE(message.find("tensor+table"), std::string::npos) << message;
    EXPECT_NE(message.find("use --kernel auto or "), std::string::npos) << message;
    if (cuda::currentDeviceLimits().major >= 8) {
        EXPECT_EQ(message.find("compute capability"), std::string::npos) << message;
        EXPECT_NE(message.find("shared memory"), std::string::npos) << message;
    } else {
        EXPECT_NE(message.find("compute capability 8.0"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace sepal::test
