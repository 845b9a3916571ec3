#include "app/polish_service.h"

#include <unistd.h>
#include <cstdio>

#include "core/common/bytes.h"

namespace sepal::app {

namespace {
// Bytes a cell's polish holds at its peak, about: three lists of its neighbours (indices and
// squared distances, then the edges or affinities both ways) and the positions, gains and steps.
size_t polishBytesPerCell(const PolishChoice& c) {
    const size_t neighbours =
        c.kernel == PolishKernel::StudentT ? size_t(3.0f * c.perplexity + 1.0f) : PolishParams().k;
    return neighbours * 3 * 8 + 96;
}

size_t physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
}
}  // namespace

size_t defaultPolishEpochs(PolishKernel kernel) {
    return kernel == PolishKernel::StudentT ? 150 : 20;
}

std::string polishLabel(const PolishChoice& c) {
    char text[96];
    if (c.kernel == PolishKernel::StudentT)
        std::snprintf(text, sizeof text, "t-SNE-like polish, %zu iterations, perplexity %g",
                      c.epochs, double(c.perplexity));
    else
        std::snprintf(text, sizeof text, "UMAP-like polish, %zu epochs", c.epochs);
    return text;
}

PolishService::~PolishService() = default;

bool PolishService::start(const PolishChoice& choice) {
    const State& st = state();
    const size_t n = st.data.events();
    auto refuse = [&](const std::string& why) {
        log(LogEntry::Warning, "cannot polish the picture: " + why);
        return false;
    };
    if (n == 0) return refuse("no data is open");
    if (choice.epochs == 0) return refuse("it needs at least one epoch");
    if (running()) return refuse("a polish is running: cancel it first");
    if (stopping()) return refuse("the cancelled polish is still stopping; try again in a moment");
    if (!m_scheduler.idle())
        return refuse(
            "the picture is not settled yet (projection, training or a recipe in "
            "progress): pause training and try again");
    const std::vector<float>& xy = m_scheduler.embedSomPositions();
    const auto points = m_scheduler.points();
    if (!points || points->rows != n || xy.size() != 2 * n)
        return refuse("the picture is not settled yet");
    const size_t polished = st.gating.count(n);
    if (polished < 2) return refuse("fewer than two cells are inside the gates");
    const size_t need = polished * polishBytesPerCell(choice), have = physicalMemoryBytes();
    if (have > 0 && need > have / 2)
        return refuse(std::to_string(polished) + " cells need about " + gigabytes(need) +
                      " for the polish, more than half of this machine's " + gigabytes(have) +
                      ": gate or open fewer cells");
    PolishParams params;
    params.kernel = choice.kernel;
    params.epochs = choice.epochs;
    params.perplexity = choice.perplexity;
    params.seed = st.training.seed;  // as sepal-cli embed's --seed
    // The UMAP-like polish on the backend's device where it has one: the same picture.
    params.device = m_scheduler.backend().polish.get();
    m_choice = choice;
    m_key = pictureKeyOf(st);
    // Only the cells inside the gates, as sepal-cli embed keeps only the events they keep.
    std::vector<size_t> cells;
    if (st.gating.count(n) < n) cells = st.gating.events(n);
    try {
        m_task = std::make_unique<PolishTask>(points, st.model, xy, params, std::move(cells));
    } catch (const std::exception& e) {
        return refuse(e.what());
    }
    log(LogEntry::Info, polishLabel(choice) + " of " + std::to_string(polished) + " cells started");
    return true;
}

void PolishService::cancel() {
    if (!m_task) return;
    // Stops after its current phase, on its own thread: the window does not wait for it.
    m_task->cancel();
    m_stopping = std::move(m_task);
    log(LogEntry::Info, "polish cancelled; the picture stays as it was");
}

bool PolishService::stopping() {
    if (m_stopping && m_stopping->done()) m_stopping.reset();
    return m_stopping != nullptr;
}

void PolishService::update() {
    stopping();
    if (!m_task || !m_task->done()) return;
    auto task = std::move(m_task);
    if (!task->note().empty()) log(LogEntry::Warning, task->note());
    if (task->cancelled()) return;
    if (!task->error().empty()) {
        log(LogEntry::Error, "the polish failed: " + task->error());
        return;
    }
    PolishedPicture picture{std::move(task->positions()), m_key, polishLabel(m_choice)};
    if (!m_scheduler.showPolished(std::move(picture))) {
        log(LogEntry::Warning, "the picture changed while it was polished; polish it again");
        return;
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f", task->seconds());
    log(LogEntry::Info, polishLabel(m_choice) + " done in " + seconds +
                            " s: polished cells no longer follow the landmarks; a drag, "
                            "training or new parameters return to EmbedSOM's picture");
}

}  // namespace sepal::app
