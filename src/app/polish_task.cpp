#include "app/polish_task.h"

#include <chrono>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"

namespace sepal::app {

PolishTask::PolishTask(std::shared_ptr<const Matrix> points, LandmarkModel model,
                       std::vector<float> xy, PolishParams params)
    : m_points(std::move(points)),
      m_model(std::move(model)),
      m_xy(std::move(xy)),
      m_params(std::move(params)) {
    m_params.onProgress = [this](double share) {
        m_progress = share;
        return !m_cancel.load();
    };
    m_thread = std::thread([this] {
        const auto start = std::chrono::steady_clock::now();
        try {
            // The CPU's search, whatever the backend: the device belongs to the frame's thread,
            // and the nearest landmarks are exact on both, so the picture is the same.
            const auto search = makeCpuNearestSearch();
            const std::vector<float> start = m_params.device ? m_xy : std::vector<float>();
            bool finished = false;
            try {
                finished = polishPositions(*m_points, m_model, m_xy.data(), m_params, *search);
            } catch (const InputError&) {
                throw;
            } catch (const std::exception& e) {
                if (!m_params.device) throw;
                // The device failed (out of memory, lost): the CPU gives the same picture.
                m_note =
                    std::string("the GPU could not polish (") + e.what() + "); polished on the CPU";
                m_xy = start;
                m_params.device = nullptr;
                finished = polishPositions(*m_points, m_model, m_xy.data(), m_params, *search);
            }
            if (!finished) m_cancel = true;
        } catch (const std::exception& e) {
            m_error = e.what();
        }
        m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        m_done = true;
    });
}

PolishTask::~PolishTask() {
    m_cancel = true;
    if (m_thread.joinable()) m_thread.join();
}

}  // namespace sepal::app
