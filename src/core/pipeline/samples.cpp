#include "core/pipeline/samples.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "core/common/error.h"

namespace sepal {

std::string sampleName(const std::string& path) {
    const std::string stem = std::filesystem::path(path).stem().string();
    return stem.empty() ? path : stem;
}

std::vector<std::string> sampleNames(const std::vector<std::string>& paths) {
    std::vector<std::string> stems;
    for (size_t s = 0; s < paths.size(); ++s) {
        std::string name = sampleName(paths[s]);
        stems.push_back(name.empty() ? "sample" + std::to_string(s + 1) : name);
    }
    const std::set<std::string> own(stems.begin(), stems.end());
    std::set<std::string> taken;
    std::vector<std::string> names;
    for (const std::string& stem : stems) {
        std::string name = stem;
        for (int n = 2; taken.count(name); ++n) {
            name = stem + "_" + std::to_string(n);
            if (own.count(name)) name = stem;  // another file's own name: try the next number
        }
        taken.insert(name);
        names.push_back(name);
    }
    return names;
}

std::optional<io::LabelColumn> concatenatedLabels(const std::vector<io::Table>& tables,
                                                  const std::string& name) {
    io::LabelColumn merged;
    merged.name = name;
    std::map<std::string, int32_t> index;
    for (const auto& t : tables) {
        const auto it = std::find_if(t.labels.begin(), t.labels.end(),
                                     [&](const io::LabelColumn& l) { return l.name == name; });
        if (it == t.labels.end()) return std::nullopt;
        std::vector<int32_t> remap(it->categories.size());
        for (size_t c = 0; c < it->categories.size(); ++c) {
            auto [pos, inserted] = index.try_emplace(
                it->categories[c], static_cast<int32_t>(merged.categories.size()));
            if (inserted) merged.categories.push_back(it->categories[c]);
            remap[c] = pos->second;
        }
        for (int32_t code : it->codes)
            merged.codes.push_back(
                code < 0 || static_cast<size_t>(code) >= remap.size() ? -1 : remap[code]);
    }
    return merged;
}

io::Table concatenateSamples(const std::vector<io::Table>& tables,
                             const std::string& sampleColumn) {
    if (tables.empty()) throw InputError("no input files: give at least one");
    io::Table out;
    const io::Table& first = tables.front();
    out.source = first.source;
    out.keywords = first.keywords;
    out.spillover = first.spillover;
    for (const auto& t : tables)
        for (const auto& w : t.warnings) out.warnings.push_back(sampleName(t.source) + ": " + w);

    // Channel j of the output comes from column where[s][j] of sample s.
    std::vector<std::vector<size_t>> where(tables.size());
    for (size_t c = 0; c < first.channels.size(); ++c) {
        const std::string& name = first.channels[c].name;
        std::vector<size_t> cols;
        std::vector<std::string> lacking;
        for (const auto& t : tables) {
            const auto it = std::find_if(t.channels.begin(), t.channels.end(),
                                         [&](const io::Channel& ch) { return ch.name == name; });
            if (it == t.channels.end())
                lacking.push_back(sampleName(t.source));
            else
                cols.push_back(static_cast<size_t>(it - t.channels.begin()));
        }
        if (!lacking.empty()) {
            out.warnings.push_back(
                "channel '" + name + "' left out: missing in " + lacking.front() +
                (lacking.size() > 1 ? " and " + std::to_string(lacking.size() - 1) + " more" : ""));
            continue;
        }
        out.channels.push_back(first.channels[c]);
        for (size_t s = 0; s < tables.size(); ++s) where[s].push_back(cols[s]);
    }
    if (out.channels.empty())
        throw InputError("the " + std::to_string(tables.size()) +
                         " inputs share no channel name; samples must measure the same channels");

    size_t total = 0;
    for (const auto& t : tables) total += t.events();
    out.values = Matrix(total, out.channels.size());
    size_t row = 0;
    for (size_t s = 0; s < tables.size(); ++s) {
        const auto& t = tables[s];
        for (size_t i = 0; i < t.events(); ++i, ++row)
            for (size_t j = 0; j < where[s].size(); ++j)
                out.values.at(row, j) = t.values.at(i, where[s][j]);
    }

    // Label columns common to all samples, categories merged in order of first appearance.
    for (const auto& label : first.labels) {
        if (label.name == sampleColumn) continue;
        if (auto merged = concatenatedLabels(tables, label.name))
            out.labels.push_back(std::move(*merged));
        else
            out.warnings.push_back("label column '" + label.name +
                                   "' left out: not in every sample");
    }

    if (!sampleColumn.empty()) {
        io::LabelColumn samples;
        samples.name = sampleColumn;
        std::vector<std::string> sources;
        for (const auto& t : tables) sources.push_back(t.source);
        // Two files called s1.fcs in different folders stay two samples.
        samples.categories = sampleNames(sources);
        for (size_t s = 0; s < tables.size(); ++s)
            samples.codes.insert(samples.codes.end(), tables[s].events(), static_cast<int32_t>(s));
        out.labels.push_back(std::move(samples));
    }
    return out;
}

}  // namespace sepal
