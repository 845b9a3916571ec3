#include "core/common/threads.h"

#include <dirent.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
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

int threadsBeside(int wanted, int cores, int othersRunning) {
    return std::max(1, std::min(wanted, cores - std::max(0, othersRunning)));
}

namespace {
// The kernel's runnable tasks on the machine now (-1: unreadable).
int runningTasks() {
    std::ifstream stat("/proc/stat");
    std::string word;
    while (stat >> word)
        if (word == "procs_running") {
            int running = -1;
            stat >> running;
            return running;
        }
    return -1;
}

// This process's runnable threads now, the caller among them (-1: unreadable): the state
// letter after the command's closing parenthesis in each task's stat.
int ownRunningThreads() {
    DIR* tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    int running = 0;
    while (const dirent* entry = readdir(tasks)) {
        if (entry->d_name[0] == '.') continue;
        std::ifstream stat(std::string("/proc/self/task/") + entry->d_name + "/stat");
        std::string line;
        std::getline(stat, line);
        const size_t close = line.rfind(')');
        if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'R')
            ++running;
    }
    closedir(tasks);
    return std::max(1, running);
}
}  // namespace

int otherRunningTasks() {
    // The machine's count covers every core; a process held to some of them (a cpuset, a
    // batch system's share) cannot tell whose tasks run on its own.
    if (omp_get_num_procs() != int(sysconf(_SC_NPROCESSORS_ONLN))) return -1;
    int least = -1;
    for (int look = 0; look < 3; ++look) {
        if (look > 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        const int running = runningTasks(), own = ownRunningThreads();
        if (running < 0 || own < 0) return -1;
        const int others = std::max(0, running - own);
        least = least < 0 ? others : std::min(least, others);
    }
    return least;
}

ThreadsForLoad::ThreadsForLoad() : m_before(omp_get_max_threads()), m_threads(m_before) {
    const int others = otherRunningTasks();
    if (others < 0) return;
    m_threads = threadsBeside(m_before, omp_get_num_procs(), others);
    if (m_threads != m_before) omp_set_num_threads(m_threads);
}

ThreadsForLoad::~ThreadsForLoad() {
    if (m_threads != m_before) omp_set_num_threads(m_before);
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
