#pragma once
// Where auto's measured CUDA kernel choices are kept: in memory for the process, and in one file
// per user (kernel_choice_file.h) that every process shares, each GPU under its own key, so that
// a shape class is measured once per GPU. The file is a convenience: one that is corrupt or
// unreadable is ignored with a one-line warning, one that cannot be written leaves the choices
// in memory. Plain C++: tested without a GPU.

#include <mutex>
#include <optional>
#include <string>

#include "core/embedsom/kernel_choice_file.h"

namespace sepal {

/// The cache file: $SEPAL_KERNEL_CACHE (a path; "off" or empty: none), else
/// $XDG_CACHE_HOME/sepal/cuda-kernels.json, else ~/.cache/sepal/cuda-kernels.json; "" for none.
std::string kernelCachePathFromEnvironment();

/// A GPU's key in the file: the name, compute capability and multiprocessors (a MIG slice or
/// another card), the driver's and the runtime's CUDA versions and Sepal's version (either may
/// change the kernels' speeds), so that any of them changed measures again.
std::string kernelDeviceKey(const std::string& name, int major, int minor, int multiprocessors,
                            int driverVersion, int runtimeVersion);

/// Measured choices by device and shape class; thread-safe.
class KernelChoiceCache {
  public:
    /// path: the file ("": the process's memory only).
    explicit KernelChoiceCache(std::string path);

    /// The choice for `shape` on `device`: from memory, else from the file (read on the first
    /// call); nothing when neither holds one.
    std::optional<KernelChoice> find(const std::string& device, const std::string& shape);
    /// Keeps `choice` in memory, and in the file: merged into what the file holds now (another
    /// process may have written since), written under a temporary name, then renamed.
    void store(const std::string& device, const std::string& shape, const KernelChoice& choice);
    /// The choice between a class's close candidates timed again on this process's own cells
    /// (auto_kernel.h): nothing when none was made. In memory only: another process's cells may
    /// favour the other candidate.
    std::optional<KernelChoice> findOnCells(const std::string& device, const std::string& shape);
    /// Keeps a choice timed on this process's cells, in memory only.
    void storeOnCells(const std::string& device, const std::string& shape,
                      const KernelChoice& choice);
    /// The file ("" when there is none).
    const std::string& path() const { return m_path; }

  private:
    /// Prints `message` as one line on standard error, the first time only.
    void warnOnce(const std::string& message);

    std::string m_path;
    std::mutex m_mutex;
    KernelChoices m_memory;
    KernelChoices m_onCells;  ///< choices timed on the process's own cells
    bool m_read = false;      ///< the file was read into m_memory
    bool m_warned = false;    ///< a warning was printed
};

}  // namespace sepal
