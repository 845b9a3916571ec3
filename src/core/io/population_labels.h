#pragma once
// Population labels inside FCS files: a numeric code parameter plus keywords naming the codes.

#include <string>
#include <vector>

#include "core/io/table.h"

namespace sepal::io {

/// Keyword holding "code:name" pairs separated by ';' ("0:Naive CD4 T;1:Memory CD4 T").
inline constexpr const char* kPopulationsKeyword = "SEPAL_POPULATIONS";
/// Keyword naming the code parameter ($PnN); "Population" when absent.
inline constexpr const char* kPopulationParameterKeyword = "SEPAL_POPULATION_PARAMETER";

/// The SEPAL_POPULATIONS value for `names` (code i names names[i]).
std::string populationKeywordValue(const std::vector<std::string>& names);

/// Turns label column `labelIndex` into a numeric code channel of the same name (missing labels
/// as -1) and sets both keywords, so that writeFcs keeps the labels. One per file: a previous
/// SEPAL_POPULATIONS is replaced.
void encodePopulationLabels(Table& table, size_t labelIndex);

/// When `table` has SEPAL_POPULATIONS and its code parameter, replaces that numeric channel by a
/// label column of the same name (codes without a name, NaN or non-integers become -1).
/// Returns true when it converted; a malformed keyword leaves the table as is, with a warning.
bool recoverPopulationLabels(Table& table);

}  // namespace sepal::io
