#include "core/io/population_labels.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

namespace sepal::io {

std::string labelKeyword(size_t number) {
    return "SEPAL_LABEL" + std::to_string(number);
}

std::string labelParameterKeyword(size_t number) {
    return labelKeyword(number) + "_PARAMETER";
}

std::string populationKeywordValue(const std::vector<std::string>& names, int firstCode) {
    std::string value;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) value += ';';
        value += std::to_string(firstCode + static_cast<int>(i));
        value += ':';
        value += names[i];
    }
    return value;
}

void encodePopulationLabels(Table& table, size_t labelIndex) {
    LabelColumn label = std::move(table.labels.at(labelIndex));
    table.labels.erase(table.labels.begin() + static_cast<std::ptrdiff_t>(labelIndex));
    const size_t rows = table.events();
    const size_t cols = table.values.cols;
    Matrix values(rows, cols + 1);
    for (size_t i = 0; i < rows; ++i) {
        std::copy(table.values.row(i), table.values.row(i) + cols, values.row(i));
        values.at(i, cols) = i < label.codes.size() ? static_cast<float>(label.codes[i]) : -1.0f;
    }
    table.values = std::move(values);
    table.channels.push_back(
        {label.name, "", static_cast<double>(std::max<size_t>(label.categories.size(), 1)), 32});
    std::erase_if(table.keywords, [](const auto& kv) {
        return kv.first == kPopulationsKeyword || kv.first == kPopulationParameterKeyword;
    });
    table.keywords.push_back({kPopulationsKeyword, populationKeywordValue(label.categories)});
    table.keywords.push_back({kPopulationParameterKeyword, label.name});
}

namespace {

/// Turns the code parameter named by `parameterKey` (default `defaultName`) into a label column
/// whose names `pairsKey` lists; false (with a warning when something is wrong) otherwise.
bool recoverLabels(Table& table, const std::string& pairsKey, const std::string& parameterKey,
                   const std::string& defaultName) {
    const std::string* pairs = table.keyword(pairsKey);
    if (!pairs) return false;
    const std::string* parameter = table.keyword(parameterKey);
    const std::string name = parameter ? *parameter : defaultName;
    const int column = table.findChannel(name);
    if (column < 0) {
        table.warnings.push_back(pairsKey + " is set but there is no parameter \"" + name +
                                 "\"; its names are not available");
        return false;
    }
    std::map<long, std::string> names;
    std::stringstream in(*pairs);
    for (std::string item; std::getline(in, item, ';');) {
        const size_t colon = item.find(':');
        long code = -1;
        const auto r = std::from_chars(
            item.data(), item.data() + (colon == std::string::npos ? 0 : colon), code);
        if (colon == std::string::npos || r.ec != std::errc() || r.ptr != item.data() + colon ||
            code < 0 || names.count(code)) {
            table.warnings.push_back(pairsKey + ": cannot read \"" + item +
                                     "\" (expected code:name); its names are not available");
            return false;
        }
        names[code] = item.substr(colon + 1);
    }
    LabelColumn label;
    label.name = table.channels[static_cast<size_t>(column)].name;
    std::map<long, int32_t> index;
    for (const auto& [code, text] : names) {
        index[code] = static_cast<int32_t>(label.categories.size());
        label.categories.push_back(text);
    }
    const size_t rows = table.events();
    const size_t cols = table.values.cols;
    const size_t c = static_cast<size_t>(column);
    label.codes.resize(rows, -1);
    Matrix kept(rows, cols - 1);
    for (size_t i = 0; i < rows; ++i) {
        const float* src = table.values.row(i);
        const float v = src[c];
        if (std::isfinite(v) && v == std::floor(v)) {
            const auto it = index.find(static_cast<long>(v));
            if (it != index.end()) label.codes[i] = it->second;
        }
        float* dst = kept.row(i);
        for (size_t j = 0, k = 0; j < cols; ++j)
            if (j != c) dst[k++] = src[j];
    }
    table.values = std::move(kept);
    table.channels.erase(table.channels.begin() + column);
    table.labels.push_back(std::move(label));
    return true;
}

}  // namespace

bool recoverPopulationLabels(Table& table) {
    const bool population =
        recoverLabels(table, kPopulationsKeyword, kPopulationParameterKeyword, "Population");
    for (size_t n = 2; table.keyword(labelKeyword(n)); ++n)
        recoverLabels(table, labelKeyword(n), labelParameterKeyword(n), labelKeyword(n));
    return population;
}

}  // namespace sepal::io
