#include "core/stats/study_files.h"

#include <filesystem>
#include <system_error>

#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/raster/png.h"
#include "core/stats/study_pictures.h"

namespace sepal::stats {

StudyFiles studyFilesIn(const std::string& folder, const std::vector<std::string>& readFiles) {
    const auto in = [&](const char* name) {
        const std::string path = (std::filesystem::path(folder) / name).string();
        io::refuseOverwritingInput(path, readFiles, "the statistics' folder");
        return path;
    };
    return {folder,       in("design.csv"),    in("da.csv"),
            in("ds.csv"), in("abundance.png"), in("state.png")};
}

namespace {
// Removes an earlier run's `path` that this run does not write, so that the folder holds one
// run's tables (a GLMM's da.csv beside an older edgeR run's ds.csv misled).
void removeEarlier(const std::string& path) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
}
}  // namespace

std::vector<std::string> writeStudyFiles(const StudyFiles& files, const StudyResult& result,
                                         const AbundanceTable& counts,
                                         const SampleMetadata& metadata,
                                         const std::string& pairColumn, bool withState) {
    // The folder is made now, when the comparison has been made: a refused one leaves none.
    std::error_code ec;
    std::filesystem::create_directories(files.folder, ec);
    if (ec) throw InputError(files.folder + ": cannot create the folder (" + ec.message() + ")");
    std::vector<std::string> written{files.design, files.abundance};
    writeDesignTable(files.design, result.design);
    writeAbundanceTable(files.abundance, result.abundance, result.method);
    if (!result.design.groupOf.empty()) {  // a covariate's slope has no groups to draw
        raster::writePng(files.boxPlots, raster::renderBoxPlots(abundanceBoxPlots(
                                             counts, result, metadata, pairColumn)));
        written.push_back(files.boxPlots);
    } else {
        removeEarlier(files.boxPlots);
    }
    if (withState) {
        writeStateTable(files.state, result.state);
        raster::writePng(files.stateHeatmap, raster::renderStateHeatmap(stateHeatmap(result)));
        written.push_back(files.state);
        written.push_back(files.stateHeatmap);
    } else {
        removeEarlier(files.state);
        removeEarlier(files.stateHeatmap);
    }
    return written;
}

}  // namespace sepal::stats
