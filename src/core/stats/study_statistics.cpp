#include "core/stats/study_statistics.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/common/error.h"
#include "core/common/number_text.h"
#include "core/common/text.h"
#include "core/io/atomic_file.h"
#include "core/io/csv_writer.h"
#include "core/markers/marker_classes.h"
#include "core/stats/glmm_da.h"

namespace sepal::stats {
namespace {

// A number as the tables write it, read back as the same double; NA when not tested.
std::string number(double v) {
    return std::isfinite(v) ? exactDecimal(v) : "NA";
}

/// The markers to test: the ones asked for (each must be a column), else the columns the
/// catalogue calls state markers.
std::vector<size_t> stateColumns(const SampleMedianTable& medians,
                                 const std::vector<std::string>& asked) {
    std::vector<size_t> columns;
    if (!asked.empty()) {
        for (const auto& name : asked) {
            const auto it = std::find(medians.markers.begin(), medians.markers.end(), name);
            if (it == medians.markers.end())
                throw InputError("--state-markers " + name +
                                 ": the sample medians have no such "
                                 "column (they have " +
                                 commaJoined(medians.markers) + ")");
            columns.push_back(size_t(it - medians.markers.begin()));
        }
        return columns;
    }
    for (size_t m = 0; m < medians.markers.size(); ++m) {
        const auto entry = catalogueEntry(medians.markers[m]);
        if (entry && entry->markerClass == MarkerClass::State) columns.push_back(m);
    }
    if (columns.empty())
        throw InputError("the sample medians have no state markers the catalogue knows (" +
                         commaJoined(medians.markers) + "): name them with --state-markers");
    return columns;
}

/// Each sample's group of the blocking column, as an index (the limma block).
std::vector<int> blockOf(const SampleMetadata& metadata, const std::vector<std::string>& samples,
                         const std::string& column) {
    const auto it = std::find(metadata.columns.begin(), metadata.columns.end(), column);
    if (it == metadata.columns.end())
        throw InputError("--block " + column + ": " + metadata.source + " has no such column (" +
                         commaJoined(metadata.columns) + ")");
    const size_t c = size_t(it - metadata.columns.begin());
    std::vector<std::string> levels;
    std::vector<int> block;
    for (const auto& s : samples) {
        const std::string v = metadata.valueOf(s, c);
        auto at = std::find(levels.begin(), levels.end(), v);
        if (at == levels.end()) at = levels.insert(levels.end(), v);
        block.push_back(int(at - levels.begin()));
    }
    if (levels.size() == samples.size())
        throw InputError("--block " + column +
                         ": every sample is a group of its own; a "
                         "blocking factor groups samples (a patient's)");
    return block;
}

/// The tested results by adjusted p-value (then p-value), the untested ones last.
template <class Result>
void sortByAdjustedP(std::vector<Result>& results) {
    std::stable_sort(results.begin(), results.end(), [](const Result& a, const Result& b) {
        if (a.tested != b.tested) return a.tested;
        if (!a.tested) return false;
        return std::tie(a.pAdjusted, a.pValue) < std::tie(b.pAdjusted, b.pValue);
    });
}

/// The counts without the cells of no population ("unassigned" in populations.csv): they are
/// not a population to compare, nor part of the library sizes.
AbundanceTable withoutUnassigned(const AbundanceTable& counts) {
    const auto it = std::find(counts.populations.begin(), counts.populations.end(), "unassigned");
    if (it == counts.populations.end()) return counts;
    const auto row = Eigen::Index(it - counts.populations.begin());
    AbundanceTable t = counts;
    t.populations.erase(t.populations.begin() + row);
    t.cells.resize(counts.cells.rows() - 1, counts.cells.cols());
    t.cells.topRows(row) = counts.cells.topRows(row);
    t.cells.bottomRows(t.cells.rows() - row) = counts.cells.bottomRows(t.cells.rows() - row);
    return t;
}

/// The counts of the samples the request chooses.
AbundanceTable chosenCounts(const AbundanceTable& counts, const SampleMetadata& metadata,
                            const StudyRequest& request) {
    if (request.samples.all()) return counts;
    const std::vector<bool> chosen =
        chosenSamples(request.samples, metadata, counts.samples, "--samples");
    std::vector<std::string> kept;
    for (size_t s = 0; s < chosen.size(); ++s)
        if (chosen[s]) kept.push_back(counts.samples[s]);
    return keepSamples(counts, kept);
}

}  // namespace

StudyResult compareConditions(const AbundanceTable& allCounts, const SampleMetadata& metadata,
                              const StudyRequest& request, const SampleMedianTable* medians) {
    if (request.method != "edgeR" && request.method != "GLMM")
        throw InputError("--method " + request.method + ": use edgeR or GLMM");
    const AbundanceTable counts = withoutUnassigned(chosenCounts(allCounts, metadata, request));
    StudyResult result;
    result.design = buildStudyDesign(metadata, counts.samples, request.formula, request.contrast,
                                     request.references);
    const std::vector<int> block = request.block.empty()
                                       ? std::vector<int>()
                                       : blockOf(metadata, counts.samples, request.block);
    result.method = request.method;
    if (request.method == "edgeR") {
        EdgeROptions abundance;
        abundance.minCells = request.minCells;
        abundance.minSamples = request.minSamples;
        result.abundance =
            differentialAbundanceEdgeR(counts.cells, counts.populations, result.design.matrix,
                                       result.design.contrast, abundance);
    } else {
        GlmmOptions abundance;
        abundance.minCells = request.minCells;
        abundance.minSamples = request.minSamples;
        for (const GlmmResult& g :
             differentialAbundanceGlmm(counts.cells, counts.populations, result.design.matrix,
                                       result.design.contrast, block, abundance)) {
            AbundanceResult r;
            r.population = g.population;
            r.tested = g.tested;
            r.logFC = g.logFC;
            r.logCPM = r.LR = NAN;
            r.z = g.z;
            r.pValue = g.pValue;
            r.pAdjusted = g.pAdjusted;
            result.abundance.push_back(r);
        }
    }
    if (!medians) return result;
    // The medians' samples and populations put in the counts' order.
    const auto S = Eigen::Index(counts.samples.size()), P = Eigen::Index(counts.populations.size());
    std::vector<Eigen::Index> sampleAt(counts.samples.size()),
        populationAt(counts.populations.size());
    for (size_t s = 0; s < counts.samples.size(); ++s) {
        const auto it =
            std::find(medians->samples.begin(), medians->samples.end(), counts.samples[s]);
        if (it == medians->samples.end())
            throw InputError("the sample medians have no sample " + counts.samples[s] +
                             " of the counts: export both from the same run");
        sampleAt[s] = Eigen::Index(it - medians->samples.begin());
    }
    for (size_t p = 0; p < counts.populations.size(); ++p) {
        const auto it = std::find(medians->populations.begin(), medians->populations.end(),
                                  counts.populations[p]);
        populationAt[p] =
            it == medians->populations.end() ? -1 : Eigen::Index(it - medians->populations.begin());
    }
    const std::vector<size_t> columns = stateColumns(*medians, request.stateMarkers);
    std::vector<Eigen::MatrixXd> values;
    for (const size_t m : columns) {
        Eigen::MatrixXd v = Eigen::MatrixXd::Constant(P, S, std::nan(""));
        for (Eigen::Index p = 0; p < P; ++p)
            for (Eigen::Index s = 0; s < S; ++s)
                if (populationAt[size_t(p)] >= 0)
                    v(p, s) = medians->medians[m](populationAt[size_t(p)], sampleAt[size_t(s)]);
        values.push_back(std::move(v));
        result.stateMarkers.push_back(medians->markers[m]);
    }
    LimmaOptions state;
    state.minCells = request.minCells;
    state.minSamples = request.minSamples;
    // The cells weigh the medians: the counts' own, which are those the medians were taken of.
    result.state =
        differentialStateLimma(values, result.stateMarkers, counts.cells, counts.populations,
                               result.design.matrix, result.design.contrast, block, state);
    return result;
}

void writeAbundanceTable(const std::string& path, std::vector<AbundanceResult> results,
                         const std::string& method) {
    sortByAdjustedP(results);
    const bool glmm = method == "GLMM";
    std::string text =
        glmm ? "population,logFC,z,p_val,p_adj\n" : "population,logFC,logCPM,LR,p_val,p_adj\n";
    for (const auto& r : results)
        text += io::csvField(r.population) + "," + number(r.logFC) + "," +
                (glmm ? number(r.z) : number(r.logCPM) + "," + number(r.LR)) + "," +
                number(r.pValue) + "," + number(r.pAdjusted) + "\n";
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

void writeStateTable(const std::string& path, std::vector<StateResult> results) {
    sortByAdjustedP(results);
    std::string text = "population,marker,logFC,t,p_val,p_adj\n";
    for (const auto& r : results)
        text += io::csvField(r.population) + "," + io::csvField(r.marker) + "," +
                number(r.tested ? r.logFC : NAN) + "," + number(r.tested ? r.t : NAN) + "," +
                number(r.tested ? r.pValue : NAN) + "," + number(r.tested ? r.pAdjusted : NAN) +
                "\n";
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

void writeDesignTable(const std::string& path, const StudyDesign& design) {
    std::string text = "sample";
    for (const auto& c : design.coefficients) text += "," + io::csvField(c);
    text += "\n";
    for (size_t s = 0; s < design.samples.size(); ++s) {
        text += io::csvField(design.samples[s]);
        for (Eigen::Index c = 0; c < design.matrix.cols(); ++c)
            text += "," + number(design.matrix(Eigen::Index(s), c));
        text += "\n";
    }
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

}  // namespace sepal::stats
