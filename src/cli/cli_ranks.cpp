#include "cli/cli_ranks.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/common/error.h"

#ifdef SEPAL_HAVE_MPI
#include <mpi.h>
#endif

namespace sepal::cli {

namespace {

/// True when a process manager (OpenMPI's mpirun, or a PMI one) started this process.
bool startedByMpirun() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
        if (std::getenv(name)) return true;
    return false;
}

}  // namespace

std::vector<int> Ranks::gpusOfThisRank(size_t gpus) const {
    std::vector<int> mine;
    if (gpus == 0) return mine;
    const size_t ranks = size_t(m_localSize), me = size_t(m_localRank);
    if (ranks >= gpus) return {int(me % gpus)};
    for (size_t g = me; g < gpus; g += ranks) mine.push_back(int(g));
    return mine;
}

std::vector<std::string> Ranks::gather(const std::string& bytes) const {
    std::vector<std::string> all;
    collect(bytes, [&](const std::string& b) { all.push_back(b); });
    return all;
}

void Ranks::together(const std::function<void()>& work) const {
    if (m_size == 1) return work();
    std::string error;
    try {
        work();
    } catch (const std::exception& e) {
        error = e.what();
        if (error.empty()) error = "failed";
    }
    const std::vector<std::string> errors = gather(error);
    if (sum(error.empty() ? 0 : 1) == 0) return;
    for (size_t r = 0; r < errors.size(); ++r)
        if (!errors[r].empty())
            std::fprintf(stderr, "sepal-cli: error: rank %zu: %s\n", r, errors[r].c_str());
    std::fflush(stderr);
    // Every rank waits until rank 0 has printed: mpirun stops the job at the first rank that
    // exits with an error.
    sum(0);
    throw ReportedError();
}

#ifdef SEPAL_HAVE_MPI

Ranks::Ranks() {
    if (!startedByMpirun()) return;
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
        // Only the main thread calls MPI; OpenMP threads work between the calls.
        int provided = 0;
        if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            throw InputError("MPI: cannot join the job mpirun started");
        m_joined = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
    // The ranks of this machine, to share its GPUs among them.
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &m_localRank);
    MPI_Comm_size(local, &m_localSize);
    MPI_Comm_free(&local);
}

Ranks::~Ranks() {
    if (m_joined) MPI_Finalize();
}

void Ranks::collect(const std::string& bytes,
                    const std::function<void(const std::string&)>& take) const {
    if (m_size == 1) return take(bytes);
    // Sizes first (64-bit: a rank's tally may pass 2 GB), then the bytes in pieces MPI counts
    // with an int.
    const auto mine = static_cast<unsigned long long>(bytes.size());
    std::vector<unsigned long long> sizes(size_t(m_size), 0);
    MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, sizes.data(), 1, MPI_UNSIGNED_LONG_LONG, 0,
               MPI_COMM_WORLD);
    constexpr size_t kPiece = size_t(1) << 30;
    if (!root()) {
        for (size_t at = 0; at < bytes.size(); at += kPiece)
            MPI_Send(bytes.data() + at, int(std::min(kPiece, bytes.size() - at)), MPI_BYTE, 0, 0,
                     MPI_COMM_WORLD);
        return;
    }
    // Everything is received even when `take` fails, so that no rank is left sending.
    std::string error;
    const auto taking = [&](const std::string& b) {
        if (!error.empty()) return;
        try {
            take(b);
        } catch (const std::exception& e) {
            error = e.what();
        }
    };
    taking(bytes);
    std::string other;
    for (int r = 1; r < m_size; ++r) {
        other.assign(sizes[size_t(r)], '\0');
        for (size_t at = 0; at < other.size(); at += kPiece)
            MPI_Recv(other.data() + at, int(std::min(kPiece, other.size() - at)), MPI_BYTE, r, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        taking(other);
    }
    if (!error.empty()) throw InputError(error);
}

uint64_t Ranks::sum(uint64_t value) const {
    return sumEach({value}).front();
}

std::vector<uint64_t> Ranks::sumEach(std::vector<uint64_t> values) const {
    if (m_size == 1 || values.empty()) return values;
    static_assert(sizeof(unsigned long long) == sizeof(uint64_t));
    std::vector<uint64_t> totals(values.size());
    MPI_Allreduce(values.data(), totals.data(), int(values.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                  MPI_COMM_WORLD);
    return totals;
}

uint64_t Ranks::maximum(uint64_t value) const {
    if (m_size == 1) return value;
    unsigned long long mine = value, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

#else

Ranks::Ranks() {
    if (startedByMpirun())
        throw InputError(
            "started by mpirun, but this sepal-cli was built without MPI (install "
            "libopenmpi-dev and build again); every process would do every file");
}

Ranks::~Ranks() = default;

void Ranks::collect(const std::string& bytes,
                    const std::function<void(const std::string&)>& take) const {
    take(bytes);
}

uint64_t Ranks::sum(uint64_t value) const {
    return value;
}

std::vector<uint64_t> Ranks::sumEach(std::vector<uint64_t> values) const {
    return values;
}

uint64_t Ranks::maximum(uint64_t value) const {
    return value;
}

#endif

}  // namespace sepal::cli
