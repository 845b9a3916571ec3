#include "app/worker_thread.h"

#include <system_error>
#include <utility>

namespace sepal::app {

WorkerThread::~WorkerThread() {
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return !m_busy; });
        m_quit = true;
    }
    m_changed.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

bool WorkerThread::start(std::function<void()> job) {
    if (!job) return false;
    wait();
    if (!m_thread.joinable()) {
        try {
            m_thread = std::thread([this] { loop(); });
        } catch (const std::system_error&) {
            return false;
        }
    }
    {
        std::lock_guard lock(m_mutex);
        m_job = std::move(job);
        m_busy = true;
    }
    m_changed.notify_all();
    return true;
}

void WorkerThread::wait() {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return !m_busy; });
}

void WorkerThread::loop() {
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_changed.wait(lock, [&] { return m_quit || m_job; });
        if (m_job) {
            std::function<void()> job = std::move(m_job);
            m_job = nullptr;
            lock.unlock();
            job();
            lock.lock();
            m_busy = false;
            m_changed.notify_all();
            continue;
        }
        if (m_quit) return;
    }
}

}  // namespace sepal::app
