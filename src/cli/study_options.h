#pragma once
// What a comparison of conditions needs on the command line, shared by `sepal-cli stats` and
// `sepal-cli apply --metadata --design --contrast` (which compares the run's own counts). The
// statistics are built only with Eigen and Boost.Math: the runner is set by stats_run.cpp
// where they are, and apply refuses a study without it.

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace sepal::cli {

/// The study's metadata, design and tests.
struct StudyOptions {
    std::string metadata;                   ///< samples.csv
    std::string design;                     ///< "condition + patient"
    std::string contrast;                   ///< "condition:stim-unstim"
    std::string samples;                    ///< the samples compared ("type!=reference")
    std::vector<std::string> references;    ///< "condition:unstim"
    std::string block;                      ///< a blocking metadata column (patient)
    std::vector<std::string> stateMarkers;  ///< markers tested for differential state
    std::string method = "edgeR";           ///< differential abundance method
    size_t minCells = 3;                    ///< a sample counts with this many cells
    size_t minSamples = 0;                  ///< samples that must count (0: half)
};

/// Adds the study's options to `cmd`; with `required`, metadata, design and contrast must be
/// given (stats), else design and contrast are optional together and need the metadata, which
/// may come alone (apply: its batch column is checked).
void addStudyOptions(CLI::App* cmd, StudyOptions& options, bool required);

/// The tables a study reads and where its results go.
struct StudyTables {
    std::string counts;                  ///< populations.csv
    std::string medians;                 ///< sample_medians.csv ("" for none)
    std::string outDir;                  ///< da.csv, ds.csv, design.csv and the pictures
    std::vector<std::string> readFiles;  ///< inputs never written over
    bool quiet = false;                  ///< no summary on stderr
};

/// Runs a comparison of conditions; throws InputError for a bad study.
using StudyRunner = void (*)(const StudyOptions&, const StudyTables&);

/// The runner of the statistics, or nullptr when sepal-cli was built without them.
StudyRunner& studyRunner();

}  // namespace sepal::cli
