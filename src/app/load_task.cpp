#include "app/load_task.h"

#include <exception>

#include "app/file_io.h"

namespace sepal::app {

LoadTask::LoadTask(std::vector<std::string> paths) : m_paths(std::move(paths)) {
    m_thread = std::thread([this] { run(); });
}

LoadTask::~LoadTask() {
    m_cancel = true;
    if (m_thread.joinable()) m_thread.join();
}

double LoadTask::progress() const {
    return m_paths.empty() ? 1.0 : double(m_finished.load()) / double(m_paths.size());
}

std::string LoadTask::current() const {
    std::lock_guard lock(m_mutex);
    return m_current;
}

std::vector<io::Table> LoadTask::takeTables() {
    std::lock_guard lock(m_mutex);
    return std::move(m_tables);
}

std::string LoadTask::error() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void LoadTask::run() {
    std::vector<io::Table> tables;
    for (const auto& path : m_paths) {
        if (m_cancel) break;
        {
            std::lock_guard lock(m_mutex);
            m_current = path;
        }
        try {
            tables.push_back(readAnyTable(path));
        } catch (const std::exception& e) {
            std::lock_guard lock(m_mutex);
            m_error = e.what();
            m_done = true;
            return;
        }
        ++m_finished;
    }
    std::lock_guard lock(m_mutex);
    if (!m_cancel) m_tables = std::move(tables);
    m_done = true;
}

}  // namespace sepal::app
