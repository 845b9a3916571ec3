#pragma once
// The workspace's exports and sessions: the events with their coordinates and populations, the
// model, the gates, the population and gate counts and heatmap, and the session file. Every writer
// throws InputError (the UI shows it) and never writes over a file the data came from.

#include <array>
#include <string>
#include <vector>

#include "app/service.h"
#include "core/pipeline/export_table.h"
#include "nlohmann/json.hpp"

namespace sepal::app {

class ComparisonService;
class DataService;
class PopulationService;

/// Everything the workspace writes, and the session it reads back.
class ExportService : public Service {
  public:
    /// data: the recent files a restored session adds to; populations: what the model and
    /// count exports carry; comparison: the conditions a session keeps.
    ExportService(Document& document, Scheduler& scheduler, Log& log, DataService& data,
                  const PopulationService& populations, ComparisonService& comparison)
        : Service(document, scheduler, log),
          m_data(data),
          m_populations(populations),
          m_comparison(comparison) {}

    /// Writes the events with EmbedSOM1, EmbedSOM2, population and sample columns as CSV, FCS or
    /// AnnData (by the extension) through core's writeExport, as sepal-cli embed and apply write
    /// them; returns the paths written (several with options.perPopulation).
    std::vector<std::string> events(const std::string& path,
                                    const ExportOptions& options = {}) const;
    /// The landmark model file of `sepal-cli embed --model` (transform, landmarks, parameters,
    /// populations, gates).
    void model(const std::string& path) const;
    /// Writes the gates: Gating-ML (.xml), a FlowJo workspace listing the samples (.wsp) or
    /// Sepal's JSON with the embedded population (sepal-cli embed --gates reads all three).
    void gates(const std::string& path) const;
    /// Writes the counts into `folder`: with populations populations.csv, medians.csv and
    /// sample_medians.csv, as sepal-cli apply writes them; with gates gate_counts.csv (each
    /// gate's events per sample), as sepal-cli gate --counts writes it. Returns the paths written;
    /// throws InputError when there is neither.
    std::vector<std::string> counts(const std::string& folder) const;
    /// Writes the heatmap as PNG (as sepal-cli apply --heatmap draws it; `light`: on white, as
    /// --heatmap-light).
    void heatmap(const std::string& path, bool light = false) const;

    /// Session JSON: files, transforms, model, colours, populations, view (camera passed in).
    nlohmann::json sessionJson(const std::array<float, 3>& camera) const;
    /// Writes sessionJson to path (atomically).
    void saveSession(const std::string& path, const std::array<float, 3>& camera) const;
    /// Restores a session; returns the camera it stored. Keeps what was open when it fails.
    std::array<float, 3> loadSession(const std::string& path);

  private:
    DataService& m_data;
    const PopulationService& m_populations;
    ComparisonService& m_comparison;
};

/// Whether `path` is a session file the app saved (a JSON object whose "format" is
/// "sepal-session"): it opens whole, files, model and view, not as data.
bool isSessionFile(const std::string& path);

}  // namespace sepal::app
