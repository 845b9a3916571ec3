#pragma once
// How well the picture keeps the cells' neighbourhoods: trustworthiness and k-NN preservation
// (k = 10) over a sample of the cells in the gates, scored on a worker thread once the picture
// settles after a change (the Stats window shows it, the Neighbours colouring reads it).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "app/quality_task.h"
#include "app/service.h"

namespace sepal::app {

/// The picture's latest scores.
struct PictureQuality {
    QualityScores scores;  ///< of the last picture scored
    bool valid = false;    ///< a picture has been scored
    bool scoring = false;  ///< a newer picture is being scored
};

/// Scores the settled picture in the background.
class QualityService : public Service {
  public:
    using Service::Service;

    /// Cells the quality is scored on (and the Neighbours colouring shows).
    static constexpr size_t kSample = 5000;
    /// Neighbours the quality compares.
    static constexpr size_t kNeighbours = 10;

    /// The picture's quality.
    const PictureQuality& current() const { return m_quality; }
    /// Takes a finished score, and starts one when the picture settled after a change (each
    /// frame, after the scheduler's work).
    void update();

  private:
    std::unique_ptr<QualityTask> m_task;
    PictureQuality m_quality;
    std::vector<size_t> m_cells;  // the cells being scored, ascending
    uint64_t m_data = 0;          // the data version scored (or being scored)
    uint64_t m_switches = 0;      // the scheduler's picture switches when it was started
    uint64_t m_key = 0;           // the versions of the picture scored last
};

}  // namespace sepal::app
