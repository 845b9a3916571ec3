// The thread kept for the jobs run one at a time (app/worker_thread.h): one thread for every
// job, each job finished when wait returns, and the job in progress finished before the thread
// goes.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "app/worker_thread.h"

namespace sepal::app {
namespace {

TEST(WorkerThread, RunsEveryJobOnOneThreadOtherThanTheCallers) {
    WorkerThread worker;
    std::vector<std::thread::id> ran;
    for (int job = 0; job < 5; ++job) {
        ASSERT_TRUE(worker.start([&] { ran.push_back(std::this_thread::get_id()); }));
        worker.wait();
        ASSERT_EQ(ran.size(), size_t(job + 1)) << "wait returned before the job ran";
    }
    for (const std::thread::id& id : ran) {
        EXPECT_EQ(id, ran[0]) << "a job ran on another thread";
        EXPECT_NE(id, std::this_thread::get_id()) << "a job ran on the caller's thread";
    }
}

TEST(WorkerThread, AJobStartedBeforeTheLastEndedWaitsForIt) {
    WorkerThread worker;
    std::atomic<int> done{0};
    std::vector<int> order;
    auto slow = [&](int tag) {
        return [&, tag] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            order.push_back(tag);
            ++done;
        };
    };
    ASSERT_TRUE(worker.start(slow(1)));
    ASSERT_TRUE(worker.start(slow(2)));  // waits for the first
    worker.wait();
    EXPECT_EQ(done.load(), 2);
    EXPECT_EQ(order, (std::vector<int>{1, 2}));
    worker.wait();  // nothing running: returns at once
}

TEST(WorkerThread, TheJobInProgressEndsBeforeTheThreadGoes) {
    std::atomic<bool> finished{false};
    {
        WorkerThread worker;
        ASSERT_TRUE(worker.start([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            finished = true;
        }));
    }
    EXPECT_TRUE(finished.load());
    WorkerThread unused;  // never started: no thread to end
    EXPECT_FALSE(unused.start(nullptr)) << "an empty job is no job";
    unused.wait();  // and nothing waits for one
}

}  // namespace
}  // namespace sepal::app
