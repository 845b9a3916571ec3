#include "busy_load.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace sepal::bench {

namespace {

// The child's whole life: async-signal-safe calls only, since the parent may have threads.
[[noreturn]] void spin(pid_t parent, unsigned limitSeconds) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);  // the parent died before the line above
    alarm(limitSeconds);                // SIGALRM's default action ends the process
    volatile unsigned long x = 0;
    while (true) x = x + 1;
}

}  // namespace

BusyLoad::BusyLoad(int count, unsigned limitSeconds) {
    const pid_t parent = getpid();
    for (int i = 0; i < count; ++i) {
        const pid_t pid = fork();
        if (pid < 0) {
            stop();
            throw std::runtime_error("busy: cannot start a competing process (fork failed)");
        }
        if (pid == 0) spin(parent, limitSeconds);
        m_children.push_back(pid);
    }
}

BusyLoad::~BusyLoad() {
    stop();
}

void BusyLoad::stop() {
    for (pid_t pid : m_children) kill(pid, SIGKILL);
    for (pid_t pid : m_children) waitpid(pid, nullptr, 0);
    m_children.clear();
}

double loadAverage() {
    std::ifstream in("/proc/loadavg");
    double load = -1.0;
    if (!(in >> load)) return -1.0;
    return load;
}

}  // namespace sepal::bench
