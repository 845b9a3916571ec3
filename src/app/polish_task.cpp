#include "app/polish_task.h"

#include <chrono>
#include <stdexcept>

#include "core/common/error.h"

namespace sepal::app {

PolishTask::PolishTask(std::shared_ptr<const Matrix> points, LandmarkModel model,
                       std::vector<float> xy, PolishParams params, std::vector<size_t> cells)
    : m_points(std::move(points)),
      m_model(std::move(model)),
      m_xy(std::move(xy)),
      m_params(std::move(params)),
      m_cells(std::move(cells)) {
    m_params.onProgress = [this](double share) {
        m_progress = share;
        return !m_cancel.load();
    };
    m_thread = std::thread([this] {
        const auto start = std::chrono::steady_clock::now();
        try {
            // The nearest landmarks on the CPU whatever the backend (the frame's thread drives
            // the projector; they are exact on both); the polish's own phases on params.device.
            const auto search = makeCpuNearestSearch();
            const std::vector<float> embedSom = m_params.device ? m_xy : std::vector<float>();
            bool finished = false;
            try {
                finished = polishCells(*search);
            } catch (const InputError&) {
                throw;
            } catch (const std::exception& e) {
                if (!m_params.device) throw;
                // The device failed (out of memory, lost): the CPU gives the same picture.
                const std::string why = e.what();
                m_xy = embedSom;
                m_params.device = nullptr;
                try {
                    finished = polishCells(*search);
                } catch (const std::exception& onCpu) {
                    throw std::runtime_error("the GPU could not polish (" + why +
                                             ") and the CPU cannot either: " + onCpu.what());
                }
                m_note = "the GPU could not polish (" + why + "); polished on the CPU";
            }
            if (!finished) m_cancel = true;
        } catch (const std::exception& e) {
            m_error = e.what();
        }
        m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        m_done = true;
    });
}

bool PolishTask::polishCells(NearestSearch& search) {
    if (m_cells.empty()) return polishPositions(*m_points, m_model, m_xy.data(), m_params, search);
    // The cells inside the gates alone, numbered as sepal-cli embed numbers the events it keeps.
    const Matrix& all = *m_points;
    Matrix kept(m_cells.size(), all.cols);
    std::vector<float> xy(2 * m_cells.size());
    for (size_t c = 0; c < m_cells.size(); ++c) {
        std::copy_n(all.row(m_cells[c]), all.cols, kept.row(c));
        xy[2 * c] = m_xy[2 * m_cells[c]], xy[2 * c + 1] = m_xy[2 * m_cells[c] + 1];
    }
    if (!polishPositions(kept, m_model, xy.data(), m_params, search)) return false;
    for (size_t c = 0; c < m_cells.size(); ++c)
        m_xy[2 * m_cells[c]] = xy[2 * c], m_xy[2 * m_cells[c] + 1] = xy[2 * c + 1];
    return true;
}

PolishTask::~PolishTask() {
    m_cancel = true;
    if (m_thread.joinable()) m_thread.join();
}

}  // namespace sepal::app
