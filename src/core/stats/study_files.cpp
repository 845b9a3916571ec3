#include "core/stats/study_files.h"

#include <filesystem>
#include <system_error>

#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/raster/png.h"
#include "core/stats/study_pictures.h"

namespace sepal::stats {

StudyFiles studyFilesIn(const std::string& folder, const std::vector<std::string>& readFiles) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) throw InputError(folder + ": cannot create the folder (" + ec.message() + ")");
    const auto in = [&](const char* name) {
        const std::string path = (std::filesystem::path(folder) / name).string();
        io::refuseOverwritingInput(path, readFiles, "the statistics' folder");
        return path;
    };
    return {in("design.csv"), in("da.csv"), in("ds.csv"), in("abundance.png"), in("state.png")};
}

std::vector<std::string> writeStudyFiles(const StudyFiles& files, const StudyResult& result,
                                         const AbundanceTable& counts,
                                         const SampleMetadata& metadata,
                                         const std::string& pairColumn, bool withState) {
    std::vector<std::string> written{files.design, files.abundance};
    writeDesignTable(files.design, result.design);
    writeAbundanceTable(files.abundance, result.abundance, result.method);
    if (!result.design.groupOf.empty()) {  // a covariate's slope has no groups to draw
        raster::writePng(files.boxPlots, raster::renderBoxPlots(abundanceBoxPlots(
                                             counts, result, metadata, pairColumn)));
        written.push_back(files.boxPlots);
    }
    if (withState) {
        writeStateTable(files.state, result.state);
        raster::writePng(files.stateHeatmap, raster::renderStateHeatmap(stateHeatmap(result)));
        written.push_back(files.state);
        written.push_back(files.stateHeatmap);
    }
    return written;
}

}  // namespace sepal::stats
