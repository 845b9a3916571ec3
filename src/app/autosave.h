#pragma once
// The autosave: the session written every half minute while it changes, and on exit, so that a
// crash loses at most half a minute of work.

#include <array>
#include <cstdint>
#include <string>

namespace sepal::app {

class Workspace;

/// Writes the workspace's session to one path when it changed and enough time passed.
class Autosaver {
  public:
    /// path: the autosave file ("" = autosave off).
    explicit Autosaver(std::string path) : m_path(std::move(path)) {}
    /// Saves when due (or at once with force); a failure is logged as a warning.
    void save(Workspace& workspace, const std::array<float, 3>& camera, bool force);
    /// The file written ("" = none).
    const std::string& path() const { return m_path; }

  private:
    std::string m_path;
    double m_last = 0;
    uint64_t m_savedCounter = 0;
};

}  // namespace sepal::app
