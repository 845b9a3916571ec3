#include "core/embedsom/kernel_choice_cache.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace sepal {

std::string kernelCachePathFromEnvironment() {
    if (const char* own = std::getenv("SEPAL_KERNEL_CACHE"))
        return std::string(own) == "off" ? std::string() : std::string(own);
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::string(xdg) + "/sepal/cuda-kernels.json";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/sepal/cuda-kernels.json";
    return "";
}

std::string kernelDeviceKey(const std::string& name, int major, int minor, int multiprocessors,
                            int driverVersion, int runtimeVersion) {
    return name + ", compute capability " + std::to_string(major) + "." + std::to_string(minor) +
           ", " + std::to_string(multiprocessors) + " multiprocessors, driver CUDA " +
           std::to_string(driverVersion) + ", runtime CUDA " + std::to_string(runtimeVersion) +
           ", Sepal " + SEPAL_VERSION;
}

KernelChoiceCache::KernelChoiceCache(std::string path) : m_path(std::move(path)) {}

namespace {

/// The choice kept in `choices` for `shape` on `device`, if any.
std::optional<KernelChoice> lookUp(const KernelChoices& choices, const std::string& device,
                                   const std::string& shape) {
    const auto d = choices.find(device);
    if (d == choices.end()) return std::nullopt;
    const auto s = d->second.find(shape);
    if (s == d->second.end()) return std::nullopt;
    return s->second;
}

}  // namespace

std::optional<KernelChoice> KernelChoiceCache::find(const std::string& device,
                                                    const std::string& shape) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_read && !m_path.empty()) {
        m_read = true;
        std::string why;
        if (auto file = readKernelChoiceFile(m_path, why)) {
            // What this process measured stays; the file adds the rest.
            for (auto& [key, shapes] : *file) m_memory[key].merge(shapes);
        } else {
            warnOnce("ignoring the CUDA kernel cache " + m_path + " (" + why + ")");
        }
    }
    return lookUp(m_memory, device, shape);
}

void KernelChoiceCache::store(const std::string& device, const std::string& shape,
                              const KernelChoice& choice) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_memory[device][shape] = choice;
    if (m_path.empty()) return;
    std::string why;
    // A corrupt file is replaced by this process's choices (already warned about on reading).
    KernelChoices file = readKernelChoiceFile(m_path, why).value_or(KernelChoices{});
    file[device][shape] = choice;
    try {
        writeKernelChoiceFile(m_path, file);
    } catch (const std::exception& e) {
        warnOnce("the CUDA kernel cache " + m_path +
                 " cannot be written; the choices stay in memory (" + e.what() + ")");
    }
}

std::optional<KernelChoice> KernelChoiceCache::findOnCells(const std::string& device,
                                                           const std::string& shape) {
    std::lock_guard<std::mutex> lock(m_mutex);
    return lookUp(m_onCells, device, shape);
}

void KernelChoiceCache::storeOnCells(const std::string& device, const std::string& shape,
                                     const KernelChoice& choice) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_onCells[device][shape] = choice;
}

void KernelChoiceCache::warnOnce(const std::string& message) {
    if (m_warned) return;
    m_warned = true;
    std::fprintf(stderr, "sepal: warning: %s\n", message.c_str());
}

}  // namespace sepal
