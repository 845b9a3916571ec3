#include "core/pipeline/export_files.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/csv_writer.h"
#include "core/io/fcs_writer.h"
#include "core/io/input_guard.h"
#include "core/pipeline/export_anndata.h"

namespace sepal {

namespace {

void writeTable(const std::string& path, ExportFormat format, const io::Table& table) {
    if (format == ExportFormat::Csv)
        io::writeCsv(path, table);
    else
        io::writeFcs(path, table);
}

/// The events of `table` whose label `column` has code `code`, with everything else kept.
io::Table eventsWithCode(const io::Table& table, size_t column, int32_t code) {
    const std::vector<int32_t>& codes = table.labels[column].codes;
    std::vector<size_t> rows;
    for (size_t i = 0; i < codes.size(); ++i)
        if (codes[i] == code) rows.push_back(i);
    io::Table out;
    out.source = table.source;
    out.channels = table.channels;
    out.keywords = table.keywords;
    out.spillover = table.spillover;
    out.values = Matrix(rows.size(), table.values.cols);
    for (size_t r = 0; r < rows.size(); ++r)
        std::copy(table.values.row(rows[r]), table.values.row(rows[r]) + table.values.cols,
                  out.values.row(r));
    for (const io::LabelColumn& l : table.labels) {
        io::LabelColumn subset{l.name, l.categories, {}};
        subset.codes.reserve(rows.size());
        for (size_t r : rows) subset.codes.push_back(l.codes[r]);
        out.labels.push_back(std::move(subset));
    }
    return out;
}

}  // namespace

ExportFormat exportFormatOf(const std::string& path) {
    const std::string ext = lowerExtension(path);
    if (ext == ".csv") return ExportFormat::Csv;
    if (ext == ".fcs") return ExportFormat::Fcs;
    if (ext == ".h5ad") {
        if (!io::canWriteH5ad())
            throw InputError(path +
                             ": this build of Sepal has no HDF5 (libhdf5-dev), so it cannot write "
                             ".h5ad; write .csv or .fcs instead");
        return ExportFormat::H5ad;
    }
    throw InputError(path + ": cannot tell the output format from the extension '" + ext +
                     "': name the file .csv, .fcs or .h5ad");
}

std::string fileNamePart(const std::string& name) {
    std::string part;
    for (unsigned char c : name) {
        if (std::isalnum(c) || c == '-' || c == '_' || (c == '.' && !part.empty()))
            part += static_cast<char>(c);
        else if (!part.empty() && part.back() != '_')
            part += '_';
    }
    while (!part.empty() && (part.back() == '_' || part.back() == '.')) part.pop_back();
    return part.empty() ? "population" : part;
}

std::vector<std::string> writeExport(const std::string& path, const ExportSource& source,
                                     const ExportOptions& options,
                                     const std::vector<std::string>& inputs) {
    const ExportFormat format = exportFormatOf(path);
    if (format == ExportFormat::H5ad) {
        AnnDataExport anndata(path, options);
        io::refuseOverwritingInput(path, inputs, "the output");
        anndata.append(source);
        anndata.commit();
        return {path};
    }
    if (options.perPopulation && !source.populations)
        throw InputError(path +
                         ": one file per population was asked for, but the data has no "
                         "population column; name or draw populations first");
    const io::Table table = buildExportTable(source, options, format);
    if (!options.perPopulation) {
        io::refuseOverwritingInput(path, inputs, "the output");
        writeTable(path, format, table);
        return {path};
    }
    // The population column is the table's first label column (buildExportTable puts it there).
    const std::filesystem::path target(path);
    const std::string stem = (target.parent_path() / target.stem()).string();
    const std::string ext = target.extension().string();
    const std::vector<std::string>& names = table.labels.front().categories;
    std::vector<size_t> counts(names.size() + 1, 0);  // the last: events in no population
    for (int32_t code : table.labels.front().codes)
        ++counts[code >= 0 ? static_cast<size_t>(code) : names.size()];
    std::vector<std::string> files(names.size() + 1);
    std::set<std::string> used;
    for (size_t p = 0; p <= names.size(); ++p) {
        if (counts[p] == 0) continue;
        const std::string base = p < names.size() ? fileNamePart(names[p]) : "unassigned";
        std::string part = base;
        for (int n = 2; !used.insert(part).second; ++n) part = base + "_" + std::to_string(n);
        files[p] = stem + "_" + part + ext;
        io::refuseOverwritingInput(files[p], inputs, "the population file");
    }
    std::vector<std::string> written;
    for (size_t p = 0; p <= names.size(); ++p) {
        if (counts[p] == 0) continue;
        writeTable(files[p], format,
                   eventsWithCode(table, 0, p < names.size() ? static_cast<int32_t>(p) : -1));
        written.push_back(files[p]);
    }
    return written;
}

}  // namespace sepal
