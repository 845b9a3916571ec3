// Threads for a stage beside busy programs (core/common/threads.h): no more than the cores left
// free, at least one, and the count set back after the stage.

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <thread>
#include <vector>

#include "core/common/threads.h"

namespace sepal {
namespace {

TEST(ThreadsForLoad, TakesTheCoresOthersLeaveFreeAndAtLeastOne) {
    EXPECT_EQ(threadsBeside(2, 2, 0), 2);
    EXPECT_EQ(threadsBeside(2, 2, 1), 1);
    EXPECT_EQ(threadsBeside(2, 2, 5), 1);
    EXPECT_EQ(threadsBeside(4, 16, 3), 4);  // the count asked is the ceiling
    EXPECT_EQ(threadsBeside(16, 16, 3), 13);
    EXPECT_EQ(threadsBeside(1, 2, -1), 1);
}

TEST(ThreadsForLoad, BusyThreadsCountAndTheCountComesBack) {
    const int cores = omp_get_num_procs();
    omp_set_num_threads(cores);
    // As many spinning threads as cores: every core is taken, so a stage gets one thread.
    std::atomic<bool> stop{false};
    std::vector<std::thread> busy;
    for (int t = 0; t < cores; ++t)
        busy.emplace_back([&stop] {
            volatile unsigned spin = 0;
            while (!stop.load(std::memory_order_relaxed)) spin = spin + 1;
        });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const int others = otherRunningTasks();
    int during = 0;
    {
        const ThreadsForLoad stage;
        during = stage.threads();
        EXPECT_EQ(omp_get_max_threads(), during);
    }
    stop = true;
    for (auto& t : busy) t.join();
    if (others < 0) GTEST_SKIP() << "skipped: /proc/stat cannot be read here";
    EXPECT_GE(others, cores);
    EXPECT_EQ(during, 1);
    EXPECT_EQ(omp_get_max_threads(), cores);
}

}  // namespace
}  // namespace sepal
