#pragma once
// One thread kept for jobs run one at a time (the training step the window runs ahead while it
// swaps, Scheduler::startStepAhead): a thread made per job would pay its start every frame, and
// the OpenMP pool of every thread that runs a parallel region would be made again with it.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace sepal::app {

/// A thread that runs the jobs given to it, one at a time, until it is destroyed. One thread
/// owns it: start, wait and the destructor are called from there, never from a job.
class WorkerThread {
  public:
    WorkerThread() = default;
    /// Waits for the job in progress, then ends the thread.
    ~WorkerThread();
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    /// Runs `job` on the thread (made on first use), after waiting for the last one; false for
    /// an empty job or when no thread could be made (nothing runs). The job must not throw.
    bool start(std::function<void()> job);
    /// Waits for the job started last (returns at once when none runs).
    void wait();

  private:
    void loop();

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::function<void()> m_job;  // the job to run next (empty: none)
    bool m_busy = false;          // a job was given and has not finished
    bool m_quit = false;
    std::thread m_thread;
};

}  // namespace sepal::app
