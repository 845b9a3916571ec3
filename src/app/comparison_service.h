#pragma once
// Comparing conditions while the populations are steered: the samples' metadata says which
// condition each sample is; differential abundance of the populations (edgeR) and differential
// state of their state markers (limma) are recomputed on a worker thread whenever the
// populations, gates or data change, so the statistics follow a lasso, a merge or new
// landmarks. The numbers are those sepal-cli stats gives on the counts the app exports.

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "app/population_service.h"
#include "app/service.h"

namespace sepal::app {

/// What to compare: a metadata column and two of its levels, optionally blocked by another and
/// adjusted for a third.
struct ComparisonSettings {
    std::string column;     ///< the metadata column of the conditions ("" : none chosen)
    std::string level;      ///< the compared condition ("stim")
    std::string reference;  ///< the baseline ("unstim")
    std::string block;      ///< a metadata column pairing samples (patient; "" for none)
    /// Differential abundance by edgeR (the block a factor of the design) or by the GLMM (the
    /// block a random intercept).
    std::string method = "edgeR";
    /// The samples compared, as sepal-cli stats --samples takes them ("type!=reference"; "":
    /// every sample).
    std::string samples;
    /// A further metadata column the design adjusts for (batch, sex, age: a factor, or a
    /// covariate when every value is a number; "" for none).
    std::string covariate;
    bool operator==(const ComparisonSettings&) const = default;
};

/// One population's differential abundance.
struct AbundanceRow {
    std::string population;  ///< its name
    bool tested = false;     ///< false: too few cells (numbers NaN)
    double logFC = 0, pValue = 0, pAdjusted = 0;
};

/// One (population, state marker) differential state test.
struct StateRow {
    std::string population, marker;
    bool tested = false;  ///< false: too few cells (numbers NaN)
    double logFC = 0, t = 0, pValue = 0, pAdjusted = 0;
};

/// The latest comparison, sorted by adjusted p (untested last).
struct Comparison {
    ComparisonSettings settings;               ///< what was compared
    std::string contrastText;                  ///< "condition: stim - unstim"
    std::string design;                        ///< the formula: "condition + patient"
    std::vector<AbundanceRow> abundance;       ///< per population
    std::vector<StateRow> state;               ///< per population and state marker
    std::vector<std::string> samples;          ///< the samples compared, in the counts' order
    std::vector<std::string> groupOf;          ///< per sample: its level of the column
    std::vector<std::string> pairOf;           ///< per sample: its block ("" without)
    std::vector<std::vector<double>> percent;  ///< per abundance row: % of each sample's cells
    double milliseconds = 0;                   ///< the tally and the tests, on the worker
    bool valid = false;                        ///< a comparison has been made
};

/// Compares the chosen conditions in the background.
class ComparisonService : public Service {
  public:
    /// Tallies the populations through `populations` (its cached state markers).
    ComparisonService(Document& document, Scheduler& scheduler, Log& log,
                      const PopulationService& populations)
        : Service(document, scheduler, log), m_populations(populations) {}
    ~ComparisonService();

    /// True when this build has the statistics (Eigen and Boost.Math were there).
    static bool available();
    /// Chooses what to compare (computed again from the next frame).
    void choose(const ComparisonSettings& settings);
    /// What is being compared.
    const ComparisonSettings& settings() const { return m_settings; }
    /// The latest finished comparison (of the current settings and populations or older); none
    /// (valid false) after one that failed.
    const Comparison& current() const { return m_current; }
    /// True while a newer comparison is being computed.
    bool computing() const { return m_task.valid(); }
    /// Why the last comparison failed ("" when it did not).
    const std::string& error() const { return m_error; }
    /// The sepal-cli command that gives the same numbers on the exported counts.
    std::string command() const;
    /// Writes da.csv, ds.csv, design.csv, abundance.png and state.png of the current data into
    /// `folder` (computed now, as sepal-cli stats on the exported tables); returns the paths.
    std::vector<std::string> exportTables(const std::string& folder) const;
    /// Says that the comparison is looked at this frame (the Compare window is open): only
    /// then is it recomputed, since the tally reads every cell on the frame's thread.
    void want() { m_wanted = true; }
    /// Takes a finished comparison and starts one when something changed and it is wanted (by
    /// want(), a new choice, or the colouring by change), each frame.
    void update();

  private:
    const PopulationService& m_populations;
    ComparisonSettings m_settings;
    Comparison m_current;
    std::string m_error;
    std::future<Comparison> m_task;
    uint64_t m_key = 0;     // the versions and settings of the comparison started last
    bool m_wanted = false;  // asked for since the last frame
};

}  // namespace sepal::app
