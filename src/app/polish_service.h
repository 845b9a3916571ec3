#pragma once
// "Polish the picture": a few epochs of a UMAP-like or t-SNE-like neighbour embedding of every
// cell inside the gates, started from EmbedSOM's settled picture on a worker thread
// (polish_task.h), shown in its place until a drag, training, new parameters or new gates return
// to EmbedSOM (polished_picture.h). The same polish as `sepal-cli embed --polish`, so the app's
// polished picture is the CLI's.

#include <cstddef>
#include <memory>
#include <string>

#include "app/polish_task.h"
#include "app/service.h"
#include "core/pipeline/polish.h"

namespace sepal::app {

/// What the user asks the polish for.
struct PolishChoice {
    PolishKernel kernel = PolishKernel::Umap;  ///< UMAP-like or t-SNE-like
    size_t epochs = 20;                        ///< epochs (UMAP-like) or iterations (t-SNE-like)
    float perplexity = 30;                     ///< t-SNE-like only
};

/// Epochs a kernel does well with by default: 20 UMAP-like, 150 t-SNE-like (docs/QUALITY.md).
size_t defaultPolishEpochs(PolishKernel kernel);
/// A polish's name for the window and the log, e.g. "t-SNE-like polish, 150 iterations".
std::string polishLabel(const PolishChoice& choice);

/// Starts, cancels and shows polishes of the picture.
class PolishService : public Service {
  public:
    using Service::Service;
    /// Cancels a polish in progress.
    ~PolishService();

    /// Polishes the current picture; refused with a log line while the picture is not settled
    /// (a sweep, training or a recipe in progress), while a polish runs or a cancelled one is
    /// still stopping, without data or when the cells would not fit in memory.
    bool start(const PolishChoice& choice);
    /// Cancels the polish in progress (the picture stays as it was); it stops on its worker
    /// after its current phase, and no new polish starts until it has.
    void cancel();
    /// Shows EmbedSOM's picture again.
    void returnToEmbedSom() { m_scheduler.returnToEmbedSom(); }
    /// True while a polish runs.
    bool running() const { return m_task != nullptr; }
    /// Share of the running polish done, in [0, 1].
    double progress() const { return m_task ? m_task->progress() : 0.0; }
    /// The polish that runs or ran last.
    const PolishChoice& choice() const { return m_choice; }
    /// The polished picture shown, or nullptr while EmbedSOM's is.
    const PolishedPicture* shown() const { return m_scheduler.polished(); }
    /// Takes a finished polish and shows it if the picture it started from still stands (each
    /// frame, before the scheduler's work, so that the frame uploads it).
    void update();

  private:
    /// True while a cancelled polish is still stopping (forgets it once it has).
    bool stopping();

    std::unique_ptr<PolishTask> m_task;
    std::unique_ptr<PolishTask> m_stopping;  // cancelled, finishing its phase
    PolishChoice m_choice;
    PictureKey m_key;  // the picture the running polish started from
};

}  // namespace sepal::app
