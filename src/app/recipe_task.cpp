#include "app/recipe_task.h"

#include <exception>

#include "core/common/threads.h"
#include "core/knn/nearest_search.h"

namespace sepal::app {

namespace {
// Thrown from the progress callback to leave trainLandmarks early when cancelled.
struct Cancelled {};
}  // namespace

RecipeTask::RecipeTask(std::shared_ptr<const Matrix> points, EmbedSettings settings,
                       std::string title)
    : m_points(std::move(points)), m_settings(std::move(settings)), m_title(std::move(title)) {
    m_thread = std::thread([this] { run(); });
}

RecipeTask::~RecipeTask() {
    m_cancel = true;
    if (m_thread.joinable()) m_thread.join();
}

std::string RecipeTask::stage() const {
    std::lock_guard lock(m_mutex);
    return m_stage;
}

std::optional<LandmarkModel> RecipeTask::takeModel() {
    std::lock_guard lock(m_mutex);
    return std::move(m_model);
}

std::string RecipeTask::error() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void RecipeTask::run() {
    // Its own CPU search: the projection may use the backend's at the same time, and the CPU
    // search gives the same neighbours as sepal-cli's default backend.
    auto search = makeCpuNearestSearch();
    auto progress = [this](const std::string& stage, double fraction) {
        if (m_cancel) throw Cancelled{};
        {
            std::lock_guard lock(m_mutex);
            m_stage = stage;
        }
        m_progress = fraction;
    };
    try {
        size_t skipped = 0;
        // Beside busy programs, the cores they leave free (the window's own threads are not
        // other programs).
        const ThreadsForLoad threads;
        LandmarkModel model =
            trainLandmarks(*m_points, m_settings, *search, progress, nullptr, &skipped);
        std::lock_guard lock(m_mutex);
        if (!m_cancel) m_model = std::move(model);
        m_skipped = skipped;
    } catch (const Cancelled&) {
    } catch (const std::exception& e) {
        std::lock_guard lock(m_mutex);
        m_error = e.what();
    }
    m_done = true;
}

}  // namespace sepal::app
