#pragma once
// Competing busy processes for sepal-bench busy: a machine whose cores other programs use.

#include <sys/types.h>

#include <vector>

namespace sepal::bench {

/// Child processes that spin on the CPU until destroyed, or until their time limit (so that a
/// killed benchmark leaves nothing behind), or until the benchmark itself dies.
class BusyLoad {
  public:
    /// Starts `count` busy processes that end on their own after `limitSeconds`.
    BusyLoad(int count, unsigned limitSeconds);
    /// Kills and reaps every busy process.
    ~BusyLoad();
    BusyLoad(const BusyLoad&) = delete;
    BusyLoad& operator=(const BusyLoad&) = delete;

    /// How many busy processes were started.
    int count() const { return static_cast<int>(m_children.size()); }

  private:
    void stop();
    std::vector<pid_t> m_children;
};

/// The 1-minute load average (/proc/loadavg), or -1 when it cannot be read.
double loadAverage();

}  // namespace sepal::bench
