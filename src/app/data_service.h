#pragma once
// The workspace's data and samples: opening files (in the background), tables, model files,
// spillover matrices and sample metadata, the transform pipeline, and the recent files.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/gate_service.h"
#include "app/load_task.h"
#include "app/service.h"
#include "core/io/table.h"
#include "core/pipeline/batch_alignment.h"
#include "core/transform/pipeline.h"

namespace sepal::app {

class PopulationService;

/// What is open and how it is transformed.
class DataService : public Service {
  public:
    /// populations: labels cells with an opened model's populations; gates: takes opened gate
    /// files (Gating-ML, FlowJo workspaces, Sepal's gates files).
    DataService(Document& document, Scheduler& scheduler, Log& log, PopulationService& populations,
                GateService& gates)
        : Service(document, scheduler, log), m_populations(populations), m_gates(gates) {}

    /// Starts loading files in the background (replacing what is open when they are read); a
    /// single model file applies to the open data instead (openModel), and gate files given
    /// with data files open on the data once it is read.
    void openFiles(std::vector<std::string> paths, bool addAsSamples = false);
    /// Cancels the load in progress.
    void cancelLoading();
    /// The file loading in progress, or nullptr.
    const LoadTask* loading() const { return m_scheduler.loading(); }
    /// Opens tables now (used by the background load and by tests); throws InputError.
    void openTables(std::vector<io::Table> tables, bool addAsSamples = false);
    /// Opens a model file (`sepal-cli embed --model` or an export): its transform, landmarks
    /// and EmbedSOM parameters replace the current ones as one undo step. Throws InputError
    /// when the open data lacks the model's channels (nothing changes then).
    void openModel(const std::string& path);
    /// Changes the transform pipeline (rebuilds the data, then trains the recipe again).
    void setPipeline(const TransformPipeline& pipeline);
    /// Compensates with the spillover matrix in `path` (io::readSpilloverFile); undoable.
    void loadSpillover(const std::string& path);
    /// Reads a sample metadata CSV (file, condition, patient, ...) and colours the samples by
    /// its first column; undoable. Errors are logged.
    void openSampleMetadata(const std::string& path);
    /// Aligns the open samples' batches (`batchColumn` of the sample metadata), learnt from the
    /// anchors ("COLUMN=VALUE", or every sample when empty) as sepal-cli align does, in
    /// `clusters` clusters of the anchors' cells (1: none; its --clusters): writes the aligned
    /// files and batch_gaps.csv into `folder` and opens the aligned files in place of the
    /// originals, which stay as they were. Errors are logged; nothing changes then.
    void alignBatches(const std::string& batchColumn, const std::string& anchors,
                      const std::string& folder, size_t clusters = 1);
    /// The channels' gaps between batches before and after the last alignment that finished
    /// (empty before any), largest gap first.
    std::vector<BatchGap> lastAlignmentGaps() const;
    /// Files opened recently, newest first.
    const std::vector<std::string>& recentFiles() const { return m_recent; }
    /// Puts a file at the top of the recent files.
    void addRecent(const std::string& path);

  private:
    PopulationService& m_populations;
    GateService& m_gates;
    std::vector<std::string> m_recent;
    /// The gaps an alignment's worker leaves for the Batches window (guarded: written there).
    struct AlignmentGaps {
        mutable std::mutex mutex;
        std::vector<BatchGap> gaps;
    };
    std::shared_ptr<AlignmentGaps> m_alignmentGaps = std::make_shared<AlignmentGaps>();
    std::vector<std::string> m_gatesAfterLoading;  // gate files given with the data loading
};

}  // namespace sepal::app
