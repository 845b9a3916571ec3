#pragma once
// An environment variable set for a scope, for the tests of code that reads a switch from the
// environment (SEPAL_KERNEL_CACHE, SEPAL_TRAIN_BOUNDS, SEPAL_GPU_SLICES, ...).

#include <cstdlib>
#include <optional>
#include <string>

namespace sepal::test {

/// Sets an environment variable (or unsets it, for a null value) for its scope, then gives it
/// back its value before (or unsets it).
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : m_name(name) {
        if (const char* old = std::getenv(name)) m_before = old;
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~ScopedEnv() {
        if (m_before)
            setenv(m_name, m_before->c_str(), 1);
        else
            unsetenv(m_name);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* m_name;
    std::optional<std::string> m_before;
};

}  // namespace sepal::test
