#include "core/pipeline/export_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "core/common/error.h"
#include "core/pipeline/samples.h"
#include "core/transform/channel_label.h"

namespace sepal {

namespace {

/// Channels an earlier export added: a new export writes them afresh.
bool isExportCoordinate(const std::string& name) {
    return name == kEmbedSom1 || name == kEmbedSom2 || name == kLegacyEmbedX ||
           name == kLegacyEmbedY;
}

/// Where each kept channel comes from in every table: where[s][j] is the column of kept
/// channel j in table s. Channels are those of the first table that every table has.
struct ChannelMap {
    std::vector<io::Channel> channels;
    std::vector<std::vector<size_t>> where;
};

ChannelMap keptChannels(std::span<const io::Table> tables, const std::set<std::string>& wanted,
                        bool allChannels, const std::string& replacedLabel) {
    ChannelMap map;
    map.where.resize(tables.size());
    for (const io::Channel& ch : tables.front().channels) {
        if (isExportCoordinate(ch.name) || (!replacedLabel.empty() && ch.name == replacedLabel))
            continue;
        if (!allChannels && !wanted.count(ch.name)) continue;
        std::vector<size_t> cols;
        for (const io::Table& t : tables) {
            const auto it = std::find_if(t.channels.begin(), t.channels.end(),
                                         [&](const io::Channel& c) { return c.name == ch.name; });
            if (it == t.channels.end()) break;
            cols.push_back(static_cast<size_t>(it - t.channels.begin()));
        }
        if (cols.size() != tables.size()) continue;  // some sample lacks it
        map.channels.push_back(ch);
        for (size_t s = 0; s < tables.size(); ++s) map.where[s].push_back(cols[s]);
    }
    return map;
}

/// Label columns of several tables merged as for embedding, and the sample column: through
/// concatenateSamples on copies that carry a single empty channel, so values are not copied.
std::vector<io::LabelColumn> mergedLabels(std::span<const io::Table> tables,
                                          const ExportSource& source) {
    if (tables.size() == 1) return tables.front().labels;
    std::vector<io::Table> shells(tables.size());
    for (size_t s = 0; s < tables.size(); ++s) {
        shells[s].source = tables[s].source;
        shells[s].labels = tables[s].labels;
        shells[s].channels = {io::Channel{"events", "", 0, 32}};
        shells[s].values = Matrix(tables[s].events(), 1);
    }
    std::vector<io::LabelColumn> labels = concatenateSamples(shells, source.sampleColumn).labels;
    if (!labels.empty() && labels.back().name == source.sampleColumn &&
        source.sampleNames.size() == tables.size())
        labels.back().categories = source.sampleNames;
    return labels;
}

/// The column of `transformed` holding each embedded channel, by channel name.
std::map<std::string, size_t> embeddedColumns(const io::Table& first,
                                              const std::vector<std::string>& used) {
    std::map<std::string, size_t> where;
    for (size_t j = 0; j < used.size(); ++j) {
        // FlowJo's compensated "Comp-PE-A" where the pipeline took it for PE-A.
        int c = first.findChannel(used[j]);
        if (c < 0) c = compensatedColumn(first, used[j]);
        if (c < 0)
            throw InputError("export: the embedded column '" + used[j] + "' is not a channel of " +
                             first.source + "; export the files the embedding was made from");
        where.emplace(first.channels[static_cast<size_t>(c)].name, j);
    }
    return where;
}

std::optional<io::Spillover> keptSpillover(const std::optional<io::Spillover>& spill,
                                           const std::vector<io::Channel>& channels) {
    if (!spill || spill->matrix.rows != spill->channels.size() ||
        spill->matrix.cols != spill->channels.size())
        return std::nullopt;
    std::vector<size_t> keep;
    for (size_t i = 0; i < spill->channels.size(); ++i)
        for (const io::Channel& ch : channels)
            if (ch.name == spill->channels[i]) keep.push_back(i);
    if (keep.empty()) return std::nullopt;
    io::Spillover out;
    out.matrix = Matrix(keep.size(), keep.size());
    for (size_t a = 0; a < keep.size(); ++a) {
        out.channels.push_back(spill->channels[keep[a]]);
        for (size_t b = 0; b < keep.size(); ++b)
            out.matrix.at(a, b) = spill->matrix.at(keep[a], keep[b]);
    }
    return out;
}

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/// The source's keywords without those of an earlier export's coordinates, plus $PnN and the
/// display range $PnD (FCS 3.1: "Linear,low,high") of the new ones; $ORIGINALITY says the data
/// changed. The FCS writer moves $Pn keywords to their channel's new number by $PnN.
std::vector<std::pair<std::string, std::string>> exportKeywords(
    const std::vector<std::pair<std::string, std::string>>& source, const CoordinateBounds& xy) {
    static const std::regex parameter(R"(\$[Pp](\d{1,9})([A-Za-z]+))");
    std::set<std::string> replaced;
    size_t highest = 0;
    for (const auto& [k, v] : source) {
        std::smatch m;
        if (!std::regex_match(k, m, parameter)) continue;
        highest = std::max<size_t>(highest, std::stoul(m[1]));
        if ((m[2] == "N" || m[2] == "n") && isExportCoordinate(v)) replaced.insert(m[1]);
    }
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : source) {
        std::smatch m;
        if (std::regex_match(k, m, parameter) && replaced.count(m[1])) continue;
        std::string upper = k;
        std::transform(upper.begin(), upper.end(), upper.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        out.emplace_back(k, upper == "$ORIGINALITY" ? "DataModified" : v);
    }
    for (size_t axis = 0; axis < 2; ++axis) {
        float lo = xy.low[axis], hi = xy.high[axis];
        if (lo > hi) lo = hi = 0;  // no finite coordinate: any range will do
        const double margin = 0.05 * (static_cast<double>(hi) - lo) + 0.5;
        const std::string p = "$P" + std::to_string(highest + 1 + axis);
        out.emplace_back(p + "N", axis == 0 ? kEmbedSom1 : kEmbedSom2);
        out.emplace_back(p + "D", "Linear," + shortNumber(std::floor(lo - margin)) + "," +
                                      shortNumber(std::ceil(hi + margin)));
    }
    return out;
}

io::LabelColumn populationColumn(const PopulationCodes& p, size_t events) {
    if (p.codes.size() != events)
        throw InputError("export: " + std::to_string(p.codes.size()) + " population codes for " +
                         std::to_string(events) + " events");
    for (int32_t code : p.codes)
        if (code >= static_cast<int32_t>(p.names.size()))
            throw InputError("export: population code " + std::to_string(code) + " has no name (" +
                             std::to_string(p.names.size()) + " populations)");
    return io::LabelColumn{p.column, p.names, p.codes};
}

}  // namespace

void CoordinateBounds::add(const Matrix& xy) {
    for (size_t i = 0; i < xy.rows; ++i)
        for (size_t axis = 0; axis < 2; ++axis)
            if (const float v = xy.at(i, axis); std::isfinite(v)) {
                low[axis] = std::min(low[axis], v);
                high[axis] = std::max(high[axis], v);
                top[axis] = std::max(top[axis], std::fabs(v));
            }
}

io::Table buildExportTable(const ExportSource& source, const ExportOptions& options,
                           ExportFormat format) {
    if (source.tables.empty()) throw InputError("export: nothing to export; open a file first");
    size_t events = 0;
    for (const io::Table& t : source.tables) events += t.events();
    if (!source.xy || source.xy->rows != events || source.xy->cols != 2)
        throw InputError("export: " + std::to_string(source.xy ? source.xy->rows : 0) +
                         " coordinates for " + std::to_string(events) +
                         " events; embed the data before exporting");
    const io::Table& first = source.tables.front();
    const std::map<std::string, size_t> embedded = embeddedColumns(first, source.usedColumns);
    const bool transformed =
        format == ExportFormat::Csv && options.values == ExportValues::Transformed;
    if (transformed && (!source.transformed || source.transformed->rows != events ||
                        source.transformed->cols != source.usedColumns.size()))
        throw InputError("export: transformed values were asked for but are not available");

    std::set<std::string> wanted;
    for (const auto& [name, column] : embedded) wanted.insert(name);
    const std::string replacedLabel = source.populations ? source.populations->column : "";
    const ChannelMap map =
        keptChannels(source.tables, wanted, options.allChannels || embedded.empty(), replacedLabel);

    io::Table out;
    out.source = first.source;
    out.channels = map.channels;
    const size_t kept = map.channels.size();
    // Per kept channel: the transformed column to take its values from, or none (raw).
    std::vector<std::optional<size_t>> fromTransformed(kept);
    if (transformed)
        for (size_t j = 0; j < kept; ++j)
            if (const auto it = embedded.find(map.channels[j].name); it != embedded.end())
                fromTransformed[j] = it->second;
    out.values = Matrix(events, kept + 2);
    size_t firstRow = 0;  // the table's first row in `out`
    for (size_t s = 0; s < source.tables.size(); ++s) {
        const io::Table& t = source.tables[s];
        // Every format holds the values as Sepal reads them (an amplifier's $PnG applied, Time
        // in its ticks), the values its gates and plots see: a CSV read back gates as its FCS
        // did. An FCS file's writer stores them as they were, with $TIMESTEP and $PnG.
        // Rows on all threads: apply's writing thread copies a block of a cohort's file here.
        const long long n = static_cast<long long>(t.events());
#pragma omp parallel for schedule(static) if (n > 16384)
        for (long long i = 0; i < n; ++i) {
            const size_t row = firstRow + size_t(i);
            float* dst = out.values.row(row);
            for (size_t j = 0; j < kept; ++j)
                dst[j] = fromTransformed[j] ? source.transformed->at(row, *fromTransformed[j])
                                            : t.values.at(size_t(i), map.where[s][j]);
            dst[kept] = source.xy->at(row, 0);
            dst[kept + 1] = source.xy->at(row, 1);
        }
        firstRow += t.events();
    }
    CoordinateBounds own;
    if (!source.bounds) own.add(*source.xy);
    const CoordinateBounds& bounds = source.bounds ? *source.bounds : own;
    for (size_t axis = 0; axis < 2; ++axis) {
        // $PnR covers the largest magnitude; $PnD (in the keywords) gives the display range.
        out.channels.push_back(io::Channel{
            axis == 0 ? kEmbedSom1 : kEmbedSom2, axis == 0 ? kEmbedSom1Marker : kEmbedSom2Marker,
            std::ceil(static_cast<double>(bounds.top[axis])) + 1.0, 32});
    }
    if (format == ExportFormat::Csv) {
        // The labels people read ("CD3 (Sm154Di)"), unique over the first table's channels.
        const std::vector<std::string> labels = channelLabels(first);
        for (size_t j = 0; j < kept; ++j) {
            for (size_t c = 0; c < first.channels.size(); ++c)
                if (first.channels[c].name == out.channels[j].name) {
                    out.channels[j].name = labels[c];
                    break;
                }
            out.channels[j].marker.clear();
        }
        out.channels[kept].marker.clear();
        out.channels[kept + 1].marker.clear();
    }
    out.keywords = exportKeywords(first.keywords, bounds);
    // Transformed values are compensated already: their table keeps no matrix to apply again.
    if (!transformed) out.spillover = keptSpillover(first.spillover, map.channels);

    // Labels: the population first (the FCS writer names its codes in SEPAL_POPULATIONS), the
    // source's other label columns, the sample column last.
    std::vector<io::LabelColumn> labels = mergedLabels(source.tables, source);
    if (source.populations) out.labels.push_back(populationColumn(*source.populations, events));
    std::optional<io::LabelColumn> sample;
    for (io::LabelColumn& l : labels) {
        if (source.populations && l.name == replacedLabel) continue;
        if (l.name == source.sampleColumn)
            sample = std::move(l);
        else
            out.labels.push_back(std::move(l));
    }
    if (sample) out.labels.push_back(std::move(*sample));
    return out;
}

std::vector<int> transformedColumns(const io::Table& exported, const ExportSource& source) {
    const std::map<std::string, size_t> embedded =
        embeddedColumns(source.tables.front(), source.usedColumns);
    std::vector<int> columns;
    for (size_t j = 0; j + 2 < exported.channels.size(); ++j) {
        const auto it = embedded.find(exported.channels[j].name);
        columns.push_back(it == embedded.end() ? -1 : static_cast<int>(it->second));
    }
    return columns;
}

}  // namespace sepal
