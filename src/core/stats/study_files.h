#pragma once
// The files a comparison of conditions writes into a folder, the same from sepal-cli stats,
// apply --design and the app's Compare window: design.csv, da.csv, ds.csv, abundance.png and
// state.png.

#include <string>
#include <vector>

#include "core/stats/study_statistics.h"

namespace sepal::stats {

/// Where a comparison's files go.
struct StudyFiles {
    std::string folder;        ///< where they go (made by writeStudyFiles)
    std::string design;        ///< design.csv
    std::string abundance;     ///< da.csv
    std::string state;         ///< ds.csv
    std::string boxPlots;      ///< abundance.png
    std::string stateHeatmap;  ///< state.png
};

/// The files in `folder`; throws InputError when a file would overwrite one of `readFiles`.
StudyFiles studyFilesIn(const std::string& folder, const std::vector<std::string>& readFiles);

/// Writes the design, the abundance table and its box plots (when the contrast compares groups
/// of samples), and with `withState` the state table and heatmap, each atomically, into the
/// folder (created when missing; InputError when it cannot be); an earlier run's files that this
/// one does not write are removed. `pairColumn` joins a group's samples in the box plots.
/// Returns the paths written.
std::vector<std::string> writeStudyFiles(const StudyFiles& files, const StudyResult& result,
                                         const AbundanceTable& counts,
                                         const SampleMetadata& metadata,
                                         const std::string& pairColumn, bool withState);

}  // namespace sepal::stats
