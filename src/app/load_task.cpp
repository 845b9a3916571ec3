#include "app/load_task.h"

#include <exception>

#include "app/file_io.h"

namespace sepal::app {

LoadTask::LoadTask(std::vector<std::string> paths)
    : m_paths(std::move(paths)), m_total(m_paths.size()) {
    m_thread = std::thread([this] { run(); });
}

LoadTask::LoadTask(FileMaker make, std::string making)
    : m_make(std::move(make)), m_current(std::move(making)) {
    m_thread = std::thread([this] { run(); });
}

LoadTask::~LoadTask() {
    m_cancel = true;
    if (m_thread.joinable()) m_thread.join();
}

double LoadTask::progress() const {
    const size_t total = m_total.load();
    return total == 0 ? (m_make ? 0.0 : 1.0) : double(m_finished.load()) / double(total);
}

std::string LoadTask::current() const {
    std::lock_guard lock(m_mutex);
    return m_current;
}

std::vector<io::Table> LoadTask::takeTables() {
    std::lock_guard lock(m_mutex);
    return std::move(m_tables);
}

std::string LoadTask::note() const {
    std::lock_guard lock(m_mutex);
    return m_note;
}

std::string LoadTask::error() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void LoadTask::run() {
    if (m_make) {
        try {
            MadeFiles made = m_make();
            m_paths = std::move(made.paths);
            std::lock_guard lock(m_mutex);
            m_note = std::move(made.note);
        } catch (const std::exception& e) {
            std::lock_guard lock(m_mutex);
            m_error = e.what();
            m_makingFailed = true;
            m_done = true;
            return;
        }
        m_total = m_paths.size();
    }
    std::vector<io::Table> tables;
    for (const auto& path : m_paths) {
        if (m_cancel) break;
        {
            std::lock_guard lock(m_mutex);
            m_current = "Reading " + path;
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
