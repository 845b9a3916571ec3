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

/// Keywords of the label columns after the population one, in the same "code:name" form:
/// SEPAL_LABEL2 with SEPAL_LABEL2_PARAMETER, SEPAL_LABEL3 ... (a sample column, for instance).
std::string labelKeyword(size_t number);
/// The keyword naming the code parameter of labelKeyword(number).
std::string labelParameterKeyword(size_t number);

/// The SEPAL_POPULATIONS value for `names`: code firstCode + i names names[i].
std::string populationKeywordValue(const std::vector<std::string>& names, int firstCode = 0);

/// Turns label column `labelIndex` into a numeric code channel of the same name (missing labels
/// as -1) and sets both keywords, so that writeFcs keeps the labels. One per file: a previous
/// SEPAL_POPULATIONS is replaced.
void encodePopulationLabels(Table& table, size_t labelIndex);

/// When `table` has SEPAL_POPULATIONS and its code parameter, replaces that numeric channel by a
/// label column of the same name (codes without a name, NaN or non-integers become -1), then
/// likewise every SEPAL_LABELn column. Returns true when it converted the population column; a
/// malformed keyword leaves that parameter numeric, with a warning.
bool recoverPopulationLabels(Table& table);

}  // namespace sepal::io
