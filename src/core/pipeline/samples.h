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

/// The samples' names of `paths`, one each and no two alike: sampleName, with "_2", "_3"... after
/// a name an earlier file has (a/s1.fcs and b/s1.fcs are "s1" and "s1_2"), never a name another
/// file has of itself; "sampleN" for a path without a name. What embed, apply and the app call
/// the samples and apply names its outputs by.
std::vector<std::string> sampleNames(const std::vector<std::string>& paths);

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
