#include "core/io/temporary_files.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <string_view>

namespace sepal::io {

namespace {

constexpr size_t kSlots = 64;
constexpr size_t kPathBytes = 4096;
constexpr size_t kRandomChars = 6;  // mkstemp's XXXXXX
constexpr auto kStaleAge = std::chrono::hours(1);

enum SlotState : int { kFree = 0, kBusy = 1, kHeld = 2 };

// Fixed storage: the signal handler may only read memory that nobody frees under it.
std::array<std::atomic<int>, kSlots> g_state{};
std::array<std::array<char, kPathBytes>, kSlots> g_paths{};
std::array<struct sigaction, 2> g_previous{};
constexpr std::array<int, 2> kSignals{SIGINT, SIGTERM};

/// Unlinks every held temporary (async-signal-safe calls only), then lets the signal do what it
/// did before: the default action, so the process ends with the signal's status.
void onSignal(int signal) {
    for (size_t i = 0; i < kSlots; ++i)
        if (g_state[i].load(std::memory_order_acquire) == kHeld) ::unlink(g_paths[i].data());
    for (size_t k = 0; k < kSignals.size(); ++k)
        if (kSignals[k] == signal) ::sigaction(signal, &g_previous[k], nullptr);
    ::raise(signal);
}

void installHandlers() {
    for (size_t k = 0; k < kSignals.size(); ++k) {
        struct sigaction current {};
        if (::sigaction(kSignals[k], nullptr, &current) != 0) continue;
        // A program that handles or ignores the signal itself keeps doing so.
        if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL) continue;
        g_previous[k] = current;
        struct sigaction ours {};
        ours.sa_handler = onSignal;
        sigemptyset(&ours.sa_mask);
        ::sigaction(kSignals[k], &ours, nullptr);
    }
}

bool allDigits(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

bool randomPart(std::string_view s) {
    return s.size() == kRandomChars &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) != 0; });
}

/// This machine's name as it goes into temporary names: letters, digits, '.' and '_' only.
const std::string& hostTag() {
    static const std::string tag = [] {
        char name[256] = {0};
        if (::gethostname(name, sizeof name - 1) != 0) return std::string("host");
        std::string t;
        for (const char* c = name; *c && t.size() < 64; ++c)
            if (std::isalnum(static_cast<unsigned char>(*c)) || *c == '.' || *c == '_') t += *c;
        return t.empty() ? std::string("host") : t;
    }();
    return tag;
}

bool processGone(std::string_view digits) {
    if (digits.size() > 9) return true;  // beyond any pid_max
    const pid_t pid = static_cast<pid_t>(std::stol(std::string(digits)));
    return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH;
}

/// Whether `name` is one of Sepal's temporaries that nobody is writing any more.
bool isStale(const std::filesystem::directory_entry& entry) {
    const std::string name = entry.path().filename().string();
    const size_t tmp = name.rfind(".tmp-");
    if (tmp == std::string::npos || tmp == 0) return false;
    const std::string_view rest = std::string_view(name).substr(tmp + 5);
    if (rest.size() > kRandomChars + 1 && rest[rest.size() - kRandomChars - 1] == '-') {
        std::string_view pid = rest.substr(0, rest.size() - kRandomChars - 1);
        // PID@HOST: a process of another machine (MPI ranks writing into one shared folder)
        // cannot be asked whether it runs; its file is stale only when it stopped changing.
        const size_t at = pid.find('@');
        const bool here = at == std::string_view::npos || pid.substr(at + 1) == hostTag();
        if (at != std::string_view::npos) pid = pid.substr(0, at);
        if (allDigits(pid) && randomPart(rest.substr(rest.size() - kRandomChars))) {
            if (here) return processGone(pid);
            std::error_code ec;
            const auto modified = entry.last_write_time(ec);
            return !ec && std::filesystem::file_time_type::clock::now() - modified > kStaleAge;
        }
    }
    if (!randomPart(rest)) return false;
    std::error_code ec;
    const auto modified = entry.last_write_time(ec);
    return !ec && std::filesystem::file_time_type::clock::now() - modified > kStaleAge;
}

/// kRandomChars letters and digits, different on every call (any thread).
std::string randomChars() {
    static std::atomic<uint64_t> state{[] {
        std::random_device device;
        return (uint64_t(device()) << 32) ^ uint64_t(device()) ^
               uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    }()};
    // SplitMix64 of a counter shared by the threads.
    uint64_t z = state.fetch_add(0x9e3779b97f4a7c15ull, std::memory_order_relaxed);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    static constexpr char kAlphabet[] =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::string chars(kRandomChars, '0');
    for (char& c : chars) {
        c = kAlphabet[z % 62];
        z /= 62;
    }
    return chars;
}

}  // namespace

std::string temporaryPattern(const std::string& path) {
    return path + ".tmp-" + std::to_string(::getpid()) + "@" + hostTag() + "-XXXXXX";
}

int rememberTemporary(const std::string& temporary) {
    static std::once_flag installed;
    std::call_once(installed, installHandlers);
    if (temporary.size() >= kPathBytes) return -1;
    for (size_t i = 0; i < kSlots; ++i) {
        int expected = kFree;
        if (!g_state[i].compare_exchange_strong(expected, kBusy)) continue;
        std::memcpy(g_paths[i].data(), temporary.c_str(), temporary.size() + 1);
        g_state[i].store(kHeld, std::memory_order_release);
        return static_cast<int>(i);
    }
    return -1;
}

void forgetTemporary(int slot) {
    if (slot >= 0 && static_cast<size_t>(slot) < kSlots)
        g_state[static_cast<size_t>(slot)].store(kFree, std::memory_order_release);
}

int createTemporary(const std::string& path, std::string& name, int& slot) {
    const std::string pattern = temporaryPattern(path);
    const std::string stem = pattern.substr(0, pattern.size() - kRandomChars);
    for (int attempt = 0; attempt < 100; ++attempt) {
        name = stem + randomChars();
        // Remembered first (installing the handlers): a signal from here on removes it.
        slot = rememberTemporary(name);
        const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) return fd;
        const int error = errno;
        forgetTemporary(slot);
        slot = -1;
        if (error != EEXIST) {
            errno = error;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

void removeStaleTemporaries(const std::string& path) {
    static std::mutex mutex;
    static std::set<std::string> cleaned;
    std::error_code ec;
    std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (folder.empty()) folder = ".";
    const std::string key = std::filesystem::absolute(folder, ec).lexically_normal().string();
    {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!cleaned.insert(key).second) return;
    }
    for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end;
         it.increment(ec)) {
        std::error_code fileError;
        if (it->is_regular_file(fileError) && isStale(*it)) std::filesystem::remove(*it, fileError);
    }
}

}  // namespace sepal::io
