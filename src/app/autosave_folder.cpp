#include "app/autosave_folder.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/io/atomic_file.h"

namespace sepal::app {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "autosave-";
constexpr const char* kMarker = ".running";
constexpr const char* kSeen = ".crashed";  // a crash the user has answered

/// The marker beside a session file.
fs::path markerOf(const fs::path& session) {
    fs::path m = session;
    m.replace_extension(kMarker);
    return m;
}

/// True while the process of a marker runs (a process of another user counts as running).
bool markerAlive(const fs::path& marker) {
    std::ifstream in(marker);
    long pid = 0;
    if (!(in >> pid) || pid <= 0) return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

int64_t secondsOf(fs::file_time_type t) {
    const auto system = std::chrono::file_clock::to_sys(t);
    return std::chrono::duration_cast<std::chrono::seconds>(system.time_since_epoch()).count();
}

std::string localTime(int64_t seconds) {
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm tm{};
    localtime_r(&t, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
    return text;
}

}  // namespace

std::vector<AutosaveFile> AutosaveFolder::list() const {
    std::vector<AutosaveFile> files;
    std::error_code ec;
    if (m_dir.empty() || !fs::is_directory(m_dir, ec)) return files;
    for (const auto& entry : fs::directory_iterator(m_dir, ec)) {
        const fs::path p = entry.path();
        const std::string name = p.filename().string();
        if (!name.starts_with(kPrefix) || p.extension() != ".json" || p.string() == m_own) continue;
        if (!entry.is_regular_file(ec)) continue;
        AutosaveFile f;
        f.path = p.string();
        f.written = secondsOf(entry.last_write_time(ec));
        f.label = localTime(f.written);
        const fs::path marker = markerOf(p);
        f.seen = fs::exists(fs::path(p).replace_extension(kSeen), ec);
        f.crashed = f.seen || (fs::exists(marker, ec) && !markerAlive(marker));
        files.push_back(std::move(f));
    }
    std::sort(files.begin(), files.end(), [](const AutosaveFile& a, const AutosaveFile& b) {
        return a.written != b.written ? a.written > b.written : a.path > b.path;
    });
    return files;
}

std::optional<AutosaveFile> AutosaveFolder::lastCrashed() const {
    for (const AutosaveFile& f : list())
        if (f.crashed && !f.seen) return f;
    return std::nullopt;
}

std::string AutosaveFolder::claim() {
    if (m_dir.empty()) return "";
    std::error_code ec;
    fs::create_directories(m_dir, ec);
    if (ec) throw InputError("cannot create the autosave folder " + m_dir + ": " + ec.message());
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    // Markers of launches that crashed before their first autosave mark nothing: removed.
    for (const auto& entry : fs::directory_iterator(m_dir, ec)) {
        const fs::path p = entry.path();
        if (p.extension() != kMarker || !p.filename().string().starts_with(kPrefix)) continue;
        fs::path session = p;
        session.replace_extension(".json");
        if (!fs::exists(session, ec) && !markerAlive(p)) fs::remove(p, ec);
    }
    const fs::path session = fs::path(m_dir) / (std::string(kPrefix) + stamp + "-" +
                                                std::to_string(::getpid()) + ".json");
    io::writeFileAtomically(markerOf(session).string(),
                            [](std::ostream& out) { out << ::getpid() << "\n"; });
    m_own = session.string();
    return m_own;
}

void AutosaveFolder::release() {
    if (m_own.empty()) return;
    std::error_code ec;
    fs::remove(markerOf(m_own), ec);
    size_t clean = fs::exists(m_own, ec) ? 1 : 0;  // this launch's file is the newest
    for (const AutosaveFile& f : list()) {
        if (f.crashed || fs::exists(markerOf(f.path), ec)) continue;  // crashed or running
        if (++clean > kKeepClean) fs::remove(f.path, ec);
    }
    m_own.clear();
}

void AutosaveFolder::dismiss(const AutosaveFile& file) {
    // The mark changes from "running" to "crashed": never offered again, never removed.
    std::error_code ec;
    fs::rename(markerOf(file.path), fs::path(file.path).replace_extension(kSeen), ec);
}

}  // namespace sepal::app
