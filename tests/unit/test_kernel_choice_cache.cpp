// auto's measured CUDA kernel choices without a GPU: the shape classes, the fastest of given
// timings, the cache file and the cache in memory and on disk (kernel_shape_class.h,
// kernel_choice.h, kernel_choice_file.h, kernel_choice_cache.h).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/embedsom/kernel_choice.h"
#include "core/embedsom/kernel_choice_cache.h"
#include "core/embedsom/kernel_choice_file.h"
#include "core/embedsom/kernel_shape_class.h"
#include "fresh_dir.h"
#include "scoped_env.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;
using test::ScopedEnv;

/// A choice as a measurement would make it.
KernelChoice measuredChoice(const std::string& fastest, double ms) {
    KernelChoice c;
    c.kernel = fastest;
    c.points = kMeasuredLargePoints;
    c.timings = {{"tensor+split", ms + 1.75}, {fastest, ms}, {"fused", 3 * ms}};
    return c;
}

std::string choiceFileText(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string kH200 = kernelDeviceKey("NVIDIA H200", 9, 0, 132, 13000, 13000);

TEST(KernelShapeClass, FewPointsHaveNoClassAndTheRestFallInThree) {
    EXPECT_FALSE(kernelShapeClass(200, 64, 1024, 32, 1.0f));
    EXPECT_FALSE(kernelShapeClass(kMeasuredMinPoints - 1, 64, 1024, 32, 1.0f));
    const auto mid = kernelShapeClass(kMeasuredMinPoints, 64, 1024, 32, 1.0f);
    const auto midTop = kernelShapeClass(kMeasuredLargePoints - 1, 64, 1024, 32, 1.0f);
    const auto large = kernelShapeClass(kMeasuredLargePoints, 64, 1024, 32, 1.0f);
    const auto largeTop = kernelShapeClass(kMeasuredHugePoints - 1, 64, 1024, 32, 1.0f);
    const auto huge = kernelShapeClass(kMeasuredHugePoints, 64, 1024, 32, 1.0f);
    const auto hundredMillion = kernelShapeClass(size_t(100000000), 64, 1024, 32, 1.0f);
    ASSERT_TRUE(mid && midTop && large && largeTop && huge && hundredMillion);
    EXPECT_EQ(mid->points, kMeasuredMinPoints);
    EXPECT_EQ(kernelShapeKey(*mid), kernelShapeKey(*midTop));
    EXPECT_EQ(large->points, kMeasuredLargePoints);
    EXPECT_EQ(kernelShapeKey(*large), kernelShapeKey(*largeTop));
    EXPECT_EQ(huge->points, kMeasuredHugePoints);
    EXPECT_EQ(kernelShapeKey(*huge), kernelShapeKey(*hundredMillion));
    EXPECT_NE(kernelShapeKey(*mid), kernelShapeKey(*large));
    EXPECT_NE(kernelShapeKey(*large), kernelShapeKey(*huge));
    EXPECT_EQ(kernelShapeKey(*huge), "d64 g1024 k32 adjust1 n1048576");
    EXPECT_EQ(kernelShapeKey(*large), "d64 g1024 k32 adjust1 n262144");
}

TEST(KernelShapeClass, EveryPartOfTheShapeAndAdjustsPathTellClassesApart) {
    const size_t n = size_t(1) << 20;
    const std::string base = kernelShapeKey(*kernelShapeClass(n, 64, 1024, 32, 1.0f));
    EXPECT_NE(kernelShapeKey(*kernelShapeClass(n, 32, 1024, 32, 1.0f)), base);
    EXPECT_NE(kernelShapeKey(*kernelShapeClass(n, 64, 256, 32, 1.0f)), base);
    EXPECT_NE(kernelShapeKey(*kernelShapeClass(n, 64, 1024, 16, 1.0f)), base);
    const auto zero = kernelShapeClass(n, 64, 1024, 32, 0.0f);
    const auto half = kernelShapeClass(n, 64, 1024, 32, 0.5f);
    const auto two = kernelShapeClass(n, 64, 1024, 32, 2.0f);
    EXPECT_EQ(zero->adjust, AdjustClass::Zero);
    EXPECT_EQ(half->adjust, AdjustClass::Other);
    EXPECT_NE(kernelShapeKey(*zero), base);
    EXPECT_NE(kernelShapeKey(*half), base);
    EXPECT_NE(kernelShapeKey(*half), kernelShapeKey(*zero));
    EXPECT_EQ(kernelShapeKey(*half), kernelShapeKey(*two));  // one path for every other value
}

TEST(KernelChoice, TheFastestTimingWinsAndTiesGoToTheFirst) {
    EXPECT_EQ(fastestKernel({{"tensor+split", 9.17}, {"tensor+parts", 7.39}, {"fused", 12.2}}),
              "tensor+parts");
    EXPECT_EQ(fastestKernel({{"tensor+table", 1.0}, {"tensor+parts", 1.0}}), "tensor+table");
    EXPECT_EQ(fastestKernel({{"a", NAN}, {"b", 0.0}, {"c", -1.0}, {"d", INFINITY}, {"e", 5.0}}),
              "e");
    EXPECT_EQ(fastestKernel({}), "");
    EXPECT_EQ(fastestKernel({{"a", NAN}}), "");
}

TEST(KernelChoice, ARunnerUpIsCloseOnlyWithinTheFactor) {
    // The twenty-fifth session's d 64 g 1024 k 32 on 2^20 clustered cells: 5 % apart.
    const std::vector<KernelTiming> close = {
        {"tensor+split", 8.411}, {"tensor+parts", 8.013}, {"fused", 80.2}};
    EXPECT_EQ(closeRunnerUp(close, 1.15), "tensor+split");
    EXPECT_EQ(closeRunnerUp(close, 1.04), "");
    // On 2^18 cells 15 % apart: just outside 1.14, inside 1.16.
    const std::vector<KernelTiming> apart = {{"tensor+split", 2.260}, {"tensor+parts", 1.964}};
    EXPECT_EQ(closeRunnerUp(apart, 1.14), "");
    EXPECT_EQ(closeRunnerUp(apart, 1.16), "tensor+split");
    // The runner-up is the second fastest, wherever it stands; times that are no times are not.
    EXPECT_EQ(closeRunnerUp({{"a", 3.0}, {"b", NAN}, {"c", 1.0}, {"d", 1.1}, {"e", 0.0}}, 1.15),
              "d");
    // Equal times: the first is the fastest, the other its close runner-up.
    EXPECT_EQ(closeRunnerUp({{"a", 1.0}, {"b", 1.0}}, 1.15), "b");
    EXPECT_EQ(closeRunnerUp({{"a", 1.0}}, 1.15), "");
    EXPECT_EQ(closeRunnerUp({}, 1.15), "");
}

TEST(KernelChoiceFile, ChoicesRoundTripThroughTheFile) {
    const fs::path dir = test::freshDir("kernel_choice_file");
    KernelChoices choices;
    choices[kH200]["d64 g1024 k32 adjust1 n262144"] = measuredChoice("tensor+parts", 1.9);
    choices[kH200]["d32 g256 k16 adjust1 n262144"] = measuredChoice("tensor+table", 0.24);
    choices["another GPU"]["d32 g256 k16 adjust1 n262144"] = measuredChoice("fused", 0.5);
    const std::string path = (dir / "deeper" / "cuda-kernels.json").string();  // folder made
    writeKernelChoiceFile(path, choices);
    std::string why;
    const auto back = readKernelChoiceFile(path, why);
    ASSERT_TRUE(back) << why;
    ASSERT_EQ(back->size(), 2u);
    const KernelChoice& c = back->at(kH200).at("d64 g1024 k32 adjust1 n262144");
    EXPECT_EQ(c.kernel, "tensor+parts");
    EXPECT_EQ(c.points, kMeasuredLargePoints);
    ASSERT_EQ(c.timings.size(), 3u);
    EXPECT_EQ(c.timings[0].kernel, "tensor+split");  // the registry's order is kept
    EXPECT_DOUBLE_EQ(c.timings[1].ms, 1.9);
    EXPECT_EQ(kernelChoicesJson(*back), choiceFileText(path));
    // No file: no choices, and no complaint.
    const auto none = readKernelChoiceFile((dir / "absent.json").string(), why);
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
}

TEST(KernelChoiceFile, WhatIsNotSuchAFileIsRefusedWithAReason) {
    EXPECT_THROW(parseKernelChoices("{\"devices\": {"), std::runtime_error);
    EXPECT_THROW(parseKernelChoices("[1, 2]"), std::runtime_error);
    EXPECT_THROW(parseKernelChoices("{\"format\": \"something else\", \"version\": 1}"),
                 std::runtime_error);
    const std::string head = "{\"format\": \"sepal-cuda-kernel-choices\", ";
    EXPECT_THROW(parseKernelChoices(head + "\"version\": 2, \"devices\": {}}"), std::runtime_error);
    EXPECT_THROW(parseKernelChoices(head + "\"version\": 1, \"devices\": {\"x\": {\"c\": "
                                           "{\"kernel\": 3, \"points\": 1, \"timings_ms\": []}}}}"),
                 std::runtime_error);
    EXPECT_TRUE(parseKernelChoices(head + "\"version\": 1, \"devices\": {}}").empty());
    const fs::path dir = test::freshDir("kernel_choice_bad");
    std::string why;
    EXPECT_FALSE(readKernelChoiceFile(dir.string(), why));  // a folder
    EXPECT_NE(why.find("directory"), std::string::npos) << why;
}

TEST(KernelChoiceCache, AChoiceStoredIsFoundInMemoryAndByTheNextProcessOnDisk) {
    const fs::path dir = test::freshDir("kernel_choice_disk");
    const std::string path = (dir / "cuda-kernels.json").string();
    const std::string shape = "d64 g1024 k32 adjust1 n262144";
    {
        KernelChoiceCache cache(path);
        EXPECT_FALSE(cache.find(kH200, shape));
        cache.store(kH200, shape, measuredChoice("tensor+parts", 1.9));
        const auto found = cache.find(kH200, shape);
        ASSERT_TRUE(found);
        EXPECT_EQ(found->kernel, "tensor+parts");
    }
    KernelChoiceCache next(path);  // another process
    const auto again = next.find(kH200, shape);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->kernel, "tensor+parts");
    EXPECT_EQ(again->timings.size(), 3u);
    // Another card, driver, runtime or Sepal version measures again.
    EXPECT_FALSE(
        next.find(kernelDeviceKey("NVIDIA H100 80GB HBM3", 9, 0, 132, 13000, 13000), shape));
    EXPECT_FALSE(next.find(kernelDeviceKey("NVIDIA H200", 9, 0, 132, 12080, 13000), shape));
    EXPECT_FALSE(next.find(kH200, "d64 g1024 k32 adjust1 n65536"));
    // No file: the process's memory only.
    KernelChoiceCache memory("");
    memory.store(kH200, shape, measuredChoice("tensor+split", 1.7));
    ASSERT_TRUE(memory.find(kH200, shape));
    EXPECT_EQ(memory.find(kH200, shape)->kernel, "tensor+split");
}

TEST(KernelChoiceCache, AChoiceOnTheProcesssCellsStaysInItsMemory) {
    const fs::path dir = test::freshDir("kernel_choice_on_cells");
    const std::string path = (dir / "cuda-kernels.json").string();
    const std::string shape = "d64 g1024 k32 adjust1 n1048576";
    {
        KernelChoiceCache cache(path);
        cache.store(kH200, shape, measuredChoice("tensor+parts", 8.0));
        EXPECT_FALSE(cache.findOnCells(kH200, shape));
        KernelChoice onCells;
        onCells.kernel = "tensor+split";
        onCells.points = size_t(1) << 20;
        onCells.timings = {{"tensor+parts", 7.5}, {"tensor+split", 7.3}};
        cache.storeOnCells(kH200, shape, onCells);
        const auto found = cache.findOnCells(kH200, shape);
        ASSERT_TRUE(found);
        EXPECT_EQ(found->kernel, "tensor+split");
        EXPECT_EQ(found->timings.size(), 2u);
        // The class's own choice is untouched, and another GPU has none on these cells.
        EXPECT_EQ(cache.find(kH200, shape)->kernel, "tensor+parts");
        EXPECT_FALSE(cache.findOnCells(
            kernelDeviceKey("NVIDIA H100 80GB HBM3", 9, 0, 132, 13000, 13000), shape));
    }
    // The next process has the class's choice from the file, but not the cells' one.
    KernelChoiceCache next(path);
    ASSERT_TRUE(next.find(kH200, shape));
    EXPECT_EQ(next.find(kH200, shape)->kernel, "tensor+parts");
    EXPECT_FALSE(next.findOnCells(kH200, shape));
    EXPECT_EQ(choiceFileText(path).find("7.3"), std::string::npos);
}

TEST(KernelChoiceCache, TwoProcessesWritingTheFileKeepBothChoices) {
    const fs::path dir = test::freshDir("kernel_choice_merge");
    const std::string path = (dir / "cuda-kernels.json").string();
    KernelChoiceCache first(path), second(path);
    EXPECT_FALSE(first.find(kH200, "a"));
    EXPECT_FALSE(second.find(kH200, "b"));
    first.store(kH200, "a", measuredChoice("tensor+parts", 1.9));
    second.store(kH200, "b", measuredChoice("tensor+table", 0.2));  // merged into first's file
    KernelChoiceCache third(path);
    ASSERT_TRUE(third.find(kH200, "a"));
    ASSERT_TRUE(third.find(kH200, "b"));
    EXPECT_EQ(third.find(kH200, "a")->kernel, "tensor+parts");
    EXPECT_EQ(third.find(kH200, "b")->kernel, "tensor+table");
    for (const auto& entry : fs::directory_iterator(dir))  // no temporary left behind
        EXPECT_EQ(entry.path().filename(), "cuda-kernels.json");
}

TEST(KernelChoiceCache, ACorruptFileIsIgnoredWithOneWarningThenReplaced) {
    const fs::path dir = test::freshDir("kernel_choice_corrupt");
    const std::string path = (dir / "cuda-kernels.json").string();
    std::ofstream(path) << "{\"format\": \"sepal-cuda-kernel-choices\", \"vers";
    KernelChoiceCache cache(path);
    testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.find(kH200, "a"));
    EXPECT_FALSE(cache.find(kH200, "b"));
    const std::string warned = testing::internal::GetCapturedStderr();
    EXPECT_NE(warned.find("ignoring the CUDA kernel cache " + path), std::string::npos) << warned;
    EXPECT_EQ(warned.find('\n'), warned.size() - 1) << warned;  // one line
    cache.store(kH200, "a", measuredChoice("tensor+parts", 1.9));
    std::string why;
    const auto rewritten = readKernelChoiceFile(path, why);
    ASSERT_TRUE(rewritten) << why;
    EXPECT_EQ(rewritten->at(kH200).at("a").kernel, "tensor+parts");
}

TEST(KernelChoiceCache, AFileThatCannotBeWrittenKeepsTheChoiceInMemory) {
    // The cache's folder is a plain file: nothing can be written under it, even as root.
    const fs::path dir = test::freshDir("kernel_choice_readonly");
    std::ofstream(dir / "blocker") << "not a folder";
    const std::string path = (dir / "blocker" / "cuda-kernels.json").string();
    KernelChoiceCache cache(path);
    testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.find(kH200, "a"));
    cache.store(kH200, "a", measuredChoice("tensor+parts", 1.9));
    cache.store(kH200, "b", measuredChoice("fused", 1.9));
    const std::string warned = testing::internal::GetCapturedStderr();
    EXPECT_NE(warned.find("cannot be written"), std::string::npos) << warned;
    EXPECT_EQ(warned.find('\n'), warned.size() - 1) << warned;  // once
    ASSERT_TRUE(cache.find(kH200, "a"));
    EXPECT_EQ(cache.find(kH200, "a")->kernel, "tensor+parts");
    EXPECT_EQ(cache.find(kH200, "b")->kernel, "fused");
}

TEST(KernelChoiceCache, TheFileComesFromTheEnvironment) {
    {
        ScopedEnv own("SEPAL_KERNEL_CACHE", "/tmp/somewhere/k.json");
        EXPECT_EQ(kernelCachePathFromEnvironment(), "/tmp/somewhere/k.json");
    }
    {
        ScopedEnv own("SEPAL_KERNEL_CACHE", "off");
        EXPECT_EQ(kernelCachePathFromEnvironment(), "");
    }
    ScopedEnv own("SEPAL_KERNEL_CACHE", nullptr);
    {
        ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
        EXPECT_EQ(kernelCachePathFromEnvironment(), "/xdg/sepal/cuda-kernels.json");
    }
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
    {
        ScopedEnv home("HOME", "/home/someone");
        EXPECT_EQ(kernelCachePathFromEnvironment(), "/home/someone/.cache/sepal/cuda-kernels.json");
    }
    ScopedEnv home("HOME", nullptr);
    EXPECT_EQ(kernelCachePathFromEnvironment(), "");
}

}  // namespace
}  // namespace sepal
