#pragma once
// How Sepal's OpenMP threads wait between parallel regions: asleep, never spinning, so that two
// threads are not slower than one when other programs keep the cores busy.

#include <string>

namespace sepal {

/// The most threads Sepal asks for: 4 times the cores, at most 1024, since the OpenMP runtime
/// fails (or crashes) when it cannot create many more threads than that.
int maxThreadCount();

/// Checks a thread count the user gave under `option` ("--threads"): 0 (all cores) up to
/// maxThreadCount(); throws InputError saying the allowed range otherwise.
void checkThreadCount(int threads, const std::string& option);

/// Threads worth using beside `othersRunning` runnable tasks of other programs on `cores`
/// cores: `wanted` less the cores those take, at least 1.
int threadsBeside(int wanted, int cores, int othersRunning);

/// Runnable tasks of other programs on the machine now: the kernel's count (/proc/stat's
/// procs_running) less this process's running threads, the least of three looks 0.2 ms apart
/// so that a task passing by does not count; -1 where it cannot be read or where this process
/// may use only some of the machine's cores (a cpuset: the count covers them all).
int otherRunningTasks();

/// For the scope of one stage, OpenMP's thread count cut to the cores other programs leave
/// free (threadsBeside of the count set before, the cores and otherRunningTasks), and set back
/// after. Two threads on two cores beside a busy program wait at every barrier for the one the
/// kernel has put aside, and took up to twice one thread's time (sepal-bench busy); the
/// results do not depend on the thread count, so cutting it never changes them.
class ThreadsForLoad {
  public:
    /// Looks at the machine and sets the count.
    ThreadsForLoad();
    /// Sets the count back.
    ~ThreadsForLoad();
    ThreadsForLoad(const ThreadsForLoad&) = delete;
    ThreadsForLoad& operator=(const ThreadsForLoad&) = delete;
    /// Threads the stage runs on.
    int threads() const { return m_threads; }

  private:
    int m_before = 1, m_threads = 1;
};

/// Called first in main. When the user set neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT, sets
/// OMP_WAIT_POLICY=PASSIVE and runs the program again (/proc/self/exe, the same argv), because
/// the OpenMP runtime reads it only when it is loaded. Returns when a policy was already set,
/// or, silently, when the program cannot be run again.
void waitPassively(char** argv);

}  // namespace sepal
