#pragma once
// The processes that share one sepal-cli run: the ranks of an MPI job when started by mpirun,
// otherwise this process alone. Built without MPI, there is always one rank.

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sepal::cli {

/// A failure already reported on stderr (by rank 0 for every rank): sepal-cli exits with 1
/// without saying more.
struct ReportedError : std::runtime_error {
    ReportedError() : std::runtime_error("reported") {}
};

/// This process's place among the processes of the run; joins MPI on construction when
/// mpirun started it, and leaves it on destruction.
class Ranks {
  public:
    Ranks();
    ~Ranks();
    Ranks(const Ranks&) = delete;
    Ranks& operator=(const Ranks&) = delete;

    /// This process's rank, 0 .. size() - 1.
    int rank() const { return m_rank; }
    /// How many processes share the run.
    int size() const { return m_size; }
    /// This process's rank among those of its machine, 0 .. localSize() - 1.
    int localRank() const { return m_localRank; }
    /// How many processes of the run share this machine.
    int localSize() const { return m_localSize; }
    /// The GPUs of this machine (of `gpus` visible) that are this rank's: its share when the
    /// machine's ranks are fewer than its GPUs, else one, the machine's ranks taking turns.
    std::vector<int> gpusOfThisRank(size_t gpus) const;
    /// True on the rank that gathers and writes what is over all files.
    bool root() const { return m_rank == 0; }
    /// Whether file number `index` of the run is this rank's to do (round robin).
    bool owns(size_t index) const { return index % size_t(m_size) == size_t(m_rank); }
    /// Every rank sends `bytes`; rank 0 gets them all in rank order, the others an empty list.
    std::vector<std::string> gather(const std::string& bytes) const;
    /// Every rank sends `bytes`; rank 0 hands each to `take` in rank order (its own first), one
    /// at a time, so that it never holds more than one other rank's bytes.
    void collect(const std::string& bytes,
                 const std::function<void(const std::string&)>& take) const;
    /// The sum of `value` over the ranks, on every rank.
    uint64_t sum(uint64_t value) const;
    /// The sums of `values` (as many on every rank) over the ranks, place by place, on every rank.
    std::vector<uint64_t> sumEach(std::vector<uint64_t> values) const;
    /// The largest `value` of any rank, on every rank.
    uint64_t maximum(uint64_t value) const;
    /// Runs `work` on every rank. With one rank its exceptions pass through; with several, a
    /// rank that fails still waits for the others, rank 0 prints every rank's error, and then
    /// every rank throws ReportedError (no rank is left waiting for one that stopped).
    void together(const std::function<void()>& work) const;

  private:
    int m_rank = 0, m_size = 1;
    int m_localRank = 0, m_localSize = 1;
    bool m_joined = false;
};

}  // namespace sepal::cli
