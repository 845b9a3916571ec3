#include "core/common/threads.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "core/common/error.h"

namespace sepal {

int maxThreadCount() {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::min(1024, 4 * cores);
}

void checkThreadCount(int threads, const std::string& option) {
    const int limit = maxThreadCount();
    if (threads >= 0 && threads <= limit) return;
    throw InputError(option + " " + std::to_string(threads) + ": give 0 (one per core) up to " +
                     std::to_string(limit) + " (four per core of this machine's " +
                     std::to_string(std::max(1u, std::thread::hardware_concurrency())) +
                     ", at most 1024)");
}

// libgomp's default lets an idle thread spin for about 3 ms after each parallel region before
// it sleeps. On two cores that other programs use, those spins take the time the working
// threads need: the mammoth's embed took 3.5 s with 2 threads against 0.8 s with 1. Even a
// 0.1 ms spin (GOMP_SPINCOUNT=10000) made 2 threads 1.4 times slower than 1 with one core busy,
// since the woken thread tends to share the caller's core; sleeping at once is never slower
// (docs/DEVELOPING.md, Threads on a shared machine).
void waitPassively(char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr)
        return;
    if (argv == nullptr || argv[0] == nullptr) return;
    // Set before exec, so that the new process finds it and does not run itself again.
    if (setenv("OMP_WAIT_POLICY", "PASSIVE", 0) != 0) return;
    execv("/proc/self/exe", argv);
    // Only reached when exec failed (no /proc): go on with the runtime's default waiting.
}

}  // namespace sepal
