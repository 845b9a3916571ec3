#include "core/pipeline/aligned_files.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/atomic_file.h"
#include "core/io/csv_writer.h"
#include "core/io/fcs_writer.h"
#include "core/io/input_guard.h"
#include "core/model/model_panel.h"
#include "core/pipeline/sample_filter.h"
#include "core/pipeline/samples.h"
#include "core/transform/channel_label.h"

namespace sepal {

namespace {

std::string shortNumber(double v) {
    std::ostringstream out;
    out << std::setprecision(6) << v;
    return out.str();
}

void writeGaps(const std::string& path, const std::vector<BatchGap>& gaps) {
    io::writeFileAtomically(path, [&](std::ostream& out) {
        out << "channel,gap_before,gap_after\n";
        for (const auto& g : gaps)
            out << io::csvField(g.channel) << ',' << shortNumber(g.before) << ','
                << shortNumber(g.after) << '\n';
    });
}

// ", in 8 clusters (2 with too few cells of a batch: their batches' maps)", or "".
std::string clustersText(const BatchAlignment& alignment) {
    if (alignment.clusters.empty()) return "";
    size_t unmapped = 0;
    for (const auto& c : alignment.clusters) unmapped += !c.mapped();
    return ", in " + std::to_string(alignment.clusters.size()) + " clusters" +
           (unmapped == 0 ? std::string()
                          : " (" + std::to_string(unmapped) +
                                " with too few cells of a batch: their batches' maps)");
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
}

}  // namespace

BatchAssignment assignBatches(const SampleMetadata& metadata, const std::vector<std::string>& paths,
                              const std::string& batchColumn, const std::string& anchors,
                              bool anchorsInEveryBatch) {
    BatchAssignment out;
    const size_t batch = metadata.columnIndex(batchColumn, "the batch column");
    for (const auto& path : paths) {
        if (metadata.rowOf(path) < 0)
            throw InputError(path + " is not listed in " + metadata.source +
                             ": every sample needs its batch");
        const std::string value = metadata.valueOf(path, batch);
        if (trimmed(value, " \t").empty())
            throw InputError(path + " has no " + batchColumn + " in " + metadata.source);
        out.batchOf.push_back(value);
    }
    out.anchor =
        chosenSamples(parseSampleFilter(anchors, "the anchors"), metadata, paths, "the anchors");
    if (anchorsInEveryBatch)
        for (const auto& b : out.batchOf) {
            bool anchored = false;
            for (size_t i = 0; i < paths.size(); ++i)
                anchored = anchored || (out.batchOf[i] == b && out.anchor[i]);
            if (!anchored)
                throw InputError("batch \"" + b + "\" has no anchor sample (" + anchors +
                                 "): the alignment learns each batch from its anchors");
        }
    return out;
}

std::vector<std::string> confoundedColumns(const SampleMetadata& metadata,
                                           const std::vector<std::string>& paths,
                                           const BatchAssignment& assignment,
                                           const std::string& batchColumn) {
    std::vector<std::string> out;
    for (size_t c = 0; c < metadata.columns.size(); ++c) {
        if (metadata.columns[c] == batchColumn) continue;
        std::map<std::string, std::string> valueOfBatch;  // the one value of a batch's anchors
        bool oneEach = true;
        for (size_t i = 0; i < paths.size() && oneEach; ++i) {
            if (!assignment.anchor[i]) continue;
            const std::string v = metadata.valueOf(paths[i], c);
            const auto [it, fresh] = valueOfBatch.emplace(assignment.batchOf[i], v);
            oneEach = fresh || it->second == v;
        }
        std::set<std::string> values;
        for (const auto& [batch, v] : valueOfBatch) values.insert(v);
        if (oneEach && values.size() > 1) out.push_back(metadata.columns[c]);
    }
    return out;
}

std::string confoundingWarning(const std::vector<std::string>& columns) {
    if (columns.empty()) return "";
    std::string list;
    for (const auto& c : columns) list += (list.empty() ? "" : ", ") + c;
    return "each batch's anchors are of one " + list +
           " and the batches' differ: the alignment "
           "takes the differences of " +
           list +
           " for the batches' and removes them; choose as "
           "anchors samples alike in every batch (a control, a reference donor)";
}

std::vector<std::string> alignedPaths(const std::vector<std::string>& paths,
                                      const std::string& folder) {
    const std::vector<std::string> names = sampleNames(paths);
    std::vector<std::string> out;
    for (size_t i = 0; i < paths.size(); ++i) {
        // FCS stays FCS; every other table is written as CSV (a TSV's or points JSON's too).
        std::string extension = std::filesystem::path(paths[i]).extension().string();
        const std::string lower = lowerExtension(paths[i]);
        if (lower != ".fcs" && lower != ".csv") extension = ".csv";
        out.push_back((std::filesystem::path(folder) / (names[i] + extension)).string());
    }
    return out;
}

std::string AlignedSamples::summary() const {
    std::vector<double> before, after;
    for (const auto& g : gaps) {
        before.push_back(g.before);
        after.push_back(g.after);
    }
    const std::string folder =
        paths.empty() ? std::string() : std::filesystem::path(paths.front()).parent_path().string();
    return "aligned " + std::to_string(paths.size()) + " files of " +
           std::to_string(alignment.batches.size()) + " batches on " +
           std::to_string(alignment.scale.steps.size()) + " channels" + clustersText(alignment) +
           " into " + folder +
           (population.empty() ? "" : ", learnt on the cells in " + population) +
           "; the batches' median gap (earth mover's distance, transformed units) " +
           shortNumber(median(before)) + " -> " + shortNumber(median(after)) + " (" +
           std::filesystem::path(gapsPath).filename().string() + ")";
}

AlignedSamples alignSamples(const std::vector<io::Table>& tables,
                            const std::vector<std::string>& paths, const AlignRequest& request) {
    const BatchAssignment& assignment = request.assignment;
    const std::string& folder = request.folder;
    AlignedSamples out;
    out.paths = alignedPaths(paths, folder);
    out.population = request.gates.path();
    out.gapsPath = (std::filesystem::path(folder) / "batch_gaps.csv").string();
    for (const auto& path : out.paths)
        io::refuseOverwritingInput(path, request.readFiles, request.folderOption);
    io::refuseOverwritingInput(out.gapsPath, request.readFiles,
                               "batch_gaps.csv in " + request.folderOption);
    // The cells that teach: each table's cells in the gates' population (the table itself
    // without one).
    const bool gatedCells = !request.gates.population.empty();
    std::vector<std::vector<uint8_t>> inside;
    std::vector<io::Table> gated;
    if (gatedCells) {
        gated.reserve(tables.size());
        for (const auto& t : tables) {
            inside.push_back(request.gates.inside(t));
            gated.push_back(io::keepRows(t, inside.back()));
        }
    }
    const BatchAlignment* given = request.given;
    // The gaps are measured on the anchors when the alignment is learnt here, else on every
    // sample: `measured` holds those samples' teaching cells, their batches in `measuredBatch`.
    std::vector<const io::Table*> anchors, measured;
    std::vector<std::string> anchorBatches, measuredBatch;
    std::vector<bool> isMeasured(tables.size(), false);
    for (size_t i = 0; i < tables.size(); ++i) {
        const io::Table* teaching = gatedCells ? &gated[i] : &tables[i];
        if (assignment.anchor[i]) {
            anchors.push_back(teaching);
            anchorBatches.push_back(assignment.batchOf[i]);
        }
        if (!given && !assignment.anchor[i]) continue;
        isMeasured[i] = true;
        measured.push_back(teaching);
        measuredBatch.push_back(assignment.batchOf[i]);
    }
    checkSamplesPanel(tables, "");  // one column must hold one marker in every sample
    out.alignment = given ? *given
                          : learnBatchAlignment(anchors, anchorBatches, request.scale,
                                                request.levels, request.clusters);
    for (size_t i = 0; i < tables.size(); ++i)
        checkAlignable(tables[i], out.alignment, assignment.batchOf[i]);
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec)
        throw InputError(request.folderOption + " " + folder + ": cannot create it (" +
                         ec.message() + ")");
    // Each sample aligned once: written, and its teaching cells kept for the gaps when measured.
    std::vector<io::Table> alignedMeasured;
    alignedMeasured.reserve(measured.size());
    for (size_t i = 0; i < tables.size(); ++i) {
        io::Table aligned = alignTable(tables[i], out.alignment, assignment.batchOf[i]);
        writeAlignedTable(out.paths[i], aligned);
        if (isMeasured[i])
            alignedMeasured.push_back(gatedCells ? io::keepRows(aligned, inside[i])
                                                 : std::move(aligned));
    }
    std::vector<const io::Table*> after;
    for (const auto& t : alignedMeasured) after.push_back(&t);
    out.gaps = batchGaps(measured, after, measuredBatch, out.alignment);
    writeGaps(out.gapsPath, out.gaps);
    return out;
}

void writeAlignedTable(const std::string& path, const io::Table& table) {
    if (lowerExtension(path) == ".fcs") return io::writeFcs(path, table);
    io::Table headed = table;  // a CSV names each marker beside its channel, as exports do
    headChannelsWithLabels(headed);
    io::writeCsv(path, headed);
}

}  // namespace sepal
