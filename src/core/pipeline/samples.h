#pragma once
// Several input files as samples of one dataset: rows concatenated, a label column says which
// file each event came from.

#include <optional>
#include <string>
#include <vector>

#include "core/io/table.h"

namespace sepal {

/// Short sample name of a path: the file name without folders and extension ("a/b/s1.fcs" -> "s1").
std::string sampleName(const std::string& path);

/// The label column `name` of every table, one after the other, categories merged in order of
/// first appearance (as concatenateSamples merges them); empty when a table lacks it.
std::optional<io::LabelColumn> concatenatedLabels(const std::vector<io::Table>& tables,
                                                  const std::string& name);

/// Concatenates tables (one per sample) into one. Channels are matched by name and ordered as in
/// the first table; channels some sample lacks are dropped with a warning (InputError when no
/// channel is common). Label columns present in every table are kept (categories merged). When
/// `sampleColumn` is non-empty a label column of that name is added whose categories are the
/// samples' names (from Table::source, made unique).
io::Table concatenateSamples(const std::vector<io::Table>& tables,
                             const std::string& sampleColumn = "sample");

}  // namespace sepal
