// Threads for a stage beside busy programs (core/common/threads.h): no more than the cores left
// free, at least one, and the count set back after the stage.

#include <gtest/gtest.h>
#include <omp.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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

TEST(ThreadsForLoad, BusyProgramsCountOwnThreadsDoNotAndTheCountComesBack) {
    const int cores = omp_get_num_procs();
    omp_set_num_threads(cores);
    if (otherRunningTasks() < 0)
        GTEST_SKIP() << "skipped: the running tasks cannot be counted here";
    // This process's own busy threads are not other programs: counted, they would add `cores`
    // to what runs beside them (other tests run in parallel under ctest, so the count is
    // compared with the one before and after them, not with zero).
    const int before = otherRunningTasks();
    std::atomic<bool> stop{false};
    std::vector<std::thread> own;
    for (int t = 0; t < cores; ++t)
        own.emplace_back([&stop] {
            volatile unsigned spin = 0;
            while (!stop.load(std::memory_order_relaxed)) spin = spin + 1;
        });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const int othersBesideOwn = otherRunningTasks();
    stop = true;
    for (auto& t : own) t.join();
    const int after = otherRunningTasks();
    // As many busy processes as cores: every core is taken, so a stage gets one thread.
    std::vector<pid_t> busy;
    for (int t = 0; t < cores; ++t) {
        const pid_t pid = fork();
        if (pid == 0)
            for (volatile unsigned spin = 0;; spin = spin + 1) {
            }
        busy.push_back(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const int others = otherRunningTasks();
    int during = 0;
    {
        const ThreadsForLoad stage;
        during = stage.threads();
        EXPECT_EQ(omp_get_max_threads(), during);
    }
    for (pid_t pid : busy) kill(pid, SIGKILL), waitpid(pid, nullptr, 0);
    EXPECT_LT(othersBesideOwn, std::max(before, after) + cores)
        << "this process's own threads were counted (" << before << " before, " << after
        << " after)";
    EXPECT_GE(others, cores);
    EXPECT_EQ(during, 1);
    EXPECT_EQ(omp_get_max_threads(), cores);
}

}  // namespace
}  // namespace sepal
