#pragma once
// Writing exports: one table as CSV or FCS by the file's extension, or one file per population.

#include <string>
#include <vector>

#include "core/pipeline/export_table.h"

namespace sepal {

/// The format a path's extension asks for (.csv, .fcs or .h5ad, any case); throws InputError for
/// other extensions, so that a long embedding does not end in a refusal.
ExportFormat exportFormatOf(const std::string& path);

/// `name` made safe as part of a file name: letters, digits, '-', '_' and '.' kept, runs of
/// anything else become one '_' (no leading dots); "population" when nothing is left.
std::string fileNamePart(const std::string& name);

/// Writes buildExportTable's table to `path` (CSV or FCS by the extension; FCS always holds the
/// raw values), or AnnData (.h5ad, export_anndata.h), through a temporary file and a rename. With
/// options.perPopulation: one file per population that has events instead, STEM_<name>.EXT beside
/// `path` (names from fileNamePart, made unique), then STEM_unassigned.EXT for events in none; each
/// file holds the same columns. Returns the paths written; throws InputError (per population
/// without populations, too, and before anything is written when a file to write is one of
/// `inputs`: see refuseOverwritingInput).
std::vector<std::string> writeExport(const std::string& path, const ExportSource& source,
                                     const ExportOptions& options,
                                     const std::vector<std::string>& inputs = {});

}  // namespace sepal
