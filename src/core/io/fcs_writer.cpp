#include "core/io/fcs_writer.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "core/common/error.h"
#include "core/common/number_text.h"
#include "core/io/atomic_file.h"
#include "core/io/population_labels.h"
#include "core/io/temporary_files.h"

namespace sepal::io {

namespace {

using Keywords = std::vector<std::pair<std::string, std::string>>;

std::string upperCase(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string trimBlank(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string number(double v) {
    if (std::floor(v) == v && std::fabs(v) < 1e15) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

/// Splits "$P12V" into (12, "V"); n = 0 when the key is not a parameter keyword.
std::pair<size_t, std::string> parameterKey(const std::string& upperKey) {
    if (upperKey.size() < 4 || upperKey.compare(0, 2, "$P") != 0) return {0, ""};
    size_t i = 2, n = 0;
    while (i < upperKey.size() && std::isdigit(static_cast<unsigned char>(upperKey[i])) && i < 10)
        n = n * 10 + static_cast<size_t>(upperKey[i++] - '0');
    if (i == 2 || i == upperKey.size()) return {0, ""};
    return {n, upperKey.substr(i)};
}

/// Keywords written from the table itself, so the original ones are dropped.
bool describesLayout(const std::string& upperKey) {
    static const std::set<std::string> kLayout = {
        "$BEGINANALYSIS", "$ENDANALYSIS", "$BEGINDATA", "$ENDDATA",  "$BEGINSTEXT", "$ENDSTEXT",
        "$BYTEORD",       "$DATATYPE",    "$MODE",      "$NEXTDATA", "$PAR",        "$TOT",
        "$SPILLOVER",     "SPILL",        "$COMP",      "SPILLOVER", "$TIMESTEP"};
    return kLayout.count(upperKey) > 0;
}

bool describesParameterLayout(const std::string& suffix) {
    return suffix == "N" || suffix == "S" || suffix == "B" || suffix == "E" || suffix == "R" ||
           suffix == "G" || suffix == "DATATYPE";
}

/// Original keywords worth keeping; $Pn keywords follow their channel to its new position.
Keywords keptKeywords(const Table& table) {
    std::map<size_t, std::string> originalName;  // original n -> $PnN
    for (const auto& [k, v] : table.keywords) {
        auto [n, suffix] = parameterKey(upperCase(k));
        if (n > 0 && suffix == "N") originalName.emplace(n, trimBlank(v));
    }
    std::map<size_t, size_t> newIndex;  // original n -> new n
    for (const auto& [n, name] : originalName)
        for (size_t j = 0; j < table.channels.size(); ++j)
            if (table.channels[j].name == name && !newIndex.count(n)) newIndex[n] = j + 1;
    Keywords kept;
    std::set<std::string> seen;
    for (const auto& [k, v] : table.keywords) {
        const std::string key = upperCase(trimBlank(k));
        if (key.empty() || v.empty() || describesLayout(key)) continue;
        std::string written = trimBlank(k);
        if (auto [n, suffix] = parameterKey(key); n > 0) {
            if (describesParameterLayout(suffix) || !newIndex.count(n)) continue;
            written = "$P" + std::to_string(newIndex[n]) + suffix;
        }
        if (!seen.insert(upperCase(written)).second) continue;
        kept.emplace_back(written, v);
    }
    return kept;
}

/// The largest magnitude of each value column (non-finite values left out).
std::vector<float> columnTops(const Table& table) {
    const size_t cols = table.values.cols;
    std::vector<float> top(cols, 0.0f);
    const long long rows = static_cast<long long>(table.values.rows);
    // Rows on all threads, each with its own maxima (the largest is the same in any order).
#pragma omp parallel if (rows > 16384)
    {
        std::vector<float> mine(cols, 0.0f);
#pragma omp for schedule(static) nowait
        for (long long r = 0; r < rows; ++r) {
            const float* row = table.values.row(size_t(r));
            for (size_t c = 0; c < cols; ++c)
                if (const float v = std::fabs(row[c]); std::isfinite(v))
                    mine[c] = std::max(mine[c], v);
        }
#pragma omp critical
        for (size_t c = 0; c < cols; ++c) top[c] = std::max(top[c], mine[c]);
    }
    return top;
}

/// $PnR: the channel's own range, else the largest magnitude of its values (at least 1).
double channelRange(const Channel& channel, float top) {
    if (channel.range > 0) return channel.range;
    return std::max(1.0, std::ceil(static_cast<double>(top)));
}

/// The label columns written as code parameters: those whose name no channel has.
std::vector<const LabelColumn*> labelsToWrite(const Table& table) {
    std::vector<const LabelColumn*> labels;
    for (const LabelColumn& l : table.labels) {
        if (l.codes.size() != table.values.rows) continue;
        bool clash = false;
        for (const Channel& c : table.channels) clash = clash || c.name == l.name;
        if (!clash) labels.push_back(&l);
    }
    return labels;
}

/// Keywords that name label codes; the writer renumbers them whenever it writes label columns.
bool namesLabelCodes(const std::string& upperKey) {
    return upperKey == kPopulationsKeyword || upperKey == kPopulationParameterKeyword ||
           upperKey.rfind("SEPAL_LABEL", 0) == 0;
}

Keywords parameterKeywords(const Table& table, const std::vector<const LabelColumn*>& labels,
                           const std::vector<float>& tops) {
    Keywords kw;
    for (size_t c = 0; c < table.channels.size(); ++c) {
        const std::string p = "$P" + std::to_string(c + 1);
        const Channel& ch = table.channels[c];
        kw.emplace_back(p + "N", ch.name.empty() ? p.substr(1) : ch.name);
        if (!ch.marker.empty()) kw.emplace_back(p + "S", ch.marker);
        kw.emplace_back(p + "B", "32");
        kw.emplace_back(p + "E", "0,0");
        kw.emplace_back(p + "R", number(channelRange(ch, float(tops[c] / ch.storedFactor()))));
        // The stored values are the input's (value / factor): a reader scales them as it did.
        if (ch.gain != 1) kw.emplace_back(p + "G", exactDecimal(ch.gain));
    }
    for (const Channel& ch : table.channels)
        if (ch.timestep != 1) {
            kw.emplace_back("$TIMESTEP", exactDecimal(ch.timestep));
            break;
        }
    for (size_t l = 0; l < labels.size(); ++l) {
        // Codes are written from 1 so that events without a label (0) stay non-negative.
        const LabelColumn& label = *labels[l];
        const std::string p = "$P" + std::to_string(table.channels.size() + l + 1);
        const std::string name = label.name.empty() ? p.substr(1) : label.name;
        kw.emplace_back(p + "N", name);
        kw.emplace_back(p + "B", "32");
        kw.emplace_back(p + "E", "0,0");
        kw.emplace_back(p + "R", number(static_cast<double>(label.categories.size() + 1)));
        kw.emplace_back(l == 0 ? std::string(kPopulationsKeyword) : labelKeyword(l + 1),
                        populationKeywordValue(label.categories, 1));
        kw.emplace_back(
            l == 0 ? std::string(kPopulationParameterKeyword) : labelParameterKeyword(l + 1), name);
    }
    if (table.spillover && table.spillover->matrix.rows == table.spillover->channels.size() &&
        table.spillover->matrix.cols == table.spillover->channels.size() &&
        !table.spillover->channels.empty()) {
        const Spillover& s = *table.spillover;
        std::string value = std::to_string(s.channels.size());
        for (const auto& name : s.channels) value.append(",").append(name);
        for (float v : s.matrix.values) value.append(",").append(number(v));
        kw.emplace_back("$SPILLOVER", value);
        // BD's keyword too when the input used it: some programs look for that one only.
        if (table.keyword("SPILL")) kw.emplace_back("SPILL", value);
    }
    return kw;
}

/// A delimiter byte that occurs in no keyword or value, so nothing needs escaping.
char chooseDelimiter(const Keywords& kw) {
    for (char d : {'/', '|', '\\', '\x0c', '\x1e', '\x1f'}) {
        bool used = false;
        for (const auto& [k, v] : kw)
            used = used || k.find(d) != std::string::npos || v.find(d) != std::string::npos;
        if (!used) return d;
    }
    return '/';
}

std::string escaped(const std::string& s, char delimiter) {
    std::string r;
    for (char c : s) {
        r.push_back(c);
        if (c == delimiter) r.push_back(c);
    }
    return r;
}

std::string headerField(uint64_t v) {
    if (v > 99999999) v = 0;  // too large for the HEADER: readers take $BEGINDATA/$ENDDATA
    char buf[16];
    std::snprintf(buf, sizeof buf, "%8llu", static_cast<unsigned long long>(v));
    return buf;
}

constexpr uint64_t kTextBegin = 58;

/// How wide a keyword's value is counted when DATA's place is reserved, if it depends on the
/// events written (0 if not): 24 characters for the offsets, the count and each parameter's
/// range $PnR (any integer or float Sepal writes), 40 for $PnD ("Linear,low,high" of the
/// coordinates' bounds).
size_t reservedWidth(const std::string& key) {
    if (key == "$BEGINDATA" || key == "$ENDDATA" || key == "$TOT") return 24;
    if (key.size() < 4 || key[0] != '$' || key[1] != 'P' || !std::isdigit(uint8_t(key[2])))
        return 0;
    size_t i = 2;
    while (i < key.size() && std::isdigit(uint8_t(key[i]))) ++i;
    if (i + 1 != key.size()) return 0;
    return key[i] == 'R' ? 24 : key[i] == 'D' ? 40 : 0;
}

/// Where DATA begins in a file of these keywords: after HEADER and the longest TEXT they can
/// make, each value that depends on the events counted as at least its reservedWidth. So a
/// streamed file's DATA goes in place from its first block on, and its TEXT, written last, fits
/// before it; the gap after TEXT is spaces (FCS places segments by their offsets).
uint64_t reservedDataBegin(const Keywords& fixed, const Keywords& body, char delimiter) {
    uint64_t size = kTextBegin + 1;
    for (const Keywords* list : {&fixed, &body})
        for (const auto& [k, v] : *list) {
            const size_t value = escaped(v, delimiter).size();
            size += escaped(k, delimiter).size() + 1 + std::max(value, reservedWidth(k)) + 1;
        }
    return size;
}

/// HEADER and TEXT of a file holding `events` rows of `table`'s channels and `labels` (as code
/// parameters), with $PnR from the channels' ranges or `tops`, padded with spaces to where DATA
/// begins (reservedDataBegin): the returned bytes end there.
std::string headerAndText(const Table& table, const std::vector<const LabelColumn*>& labels,
                          const std::vector<float>& tops, uint64_t events) {
    const size_t cols = table.channels.size() + labels.size();
    const uint64_t dataBytes = events * cols * 4;
    Keywords body = parameterKeywords(table, labels, tops);
    Keywords kept = keptKeywords(table);
    if (!labels.empty())  // the labels' own keywords replace any the table carried
        std::erase_if(kept, [](const auto& kv) { return namesLabelCodes(upperCase(kv.first)); });
    body.insert(body.end(), kept.begin(), kept.end());
    const char delimiter = chooseDelimiter(body);
    const auto fixedKeywords = [&](uint64_t dataBegin) -> Keywords {
        const uint64_t dataEnd = dataBytes ? dataBegin + dataBytes - 1 : 0;
        return {{"$BEGINANALYSIS", "0"},
                {"$ENDANALYSIS", "0"},
                {"$BEGINSTEXT", "0"},
                {"$ENDSTEXT", "0"},
                {"$BEGINDATA", std::to_string(dataBytes ? dataBegin : 0)},
                {"$ENDDATA", std::to_string(dataEnd)},
                {"$BYTEORD", "1,2,3,4"},
                {"$DATATYPE", "F"},
                {"$MODE", "L"},
                {"$NEXTDATA", "0"},
                {"$PAR", std::to_string(cols)},
                {"$TOT", std::to_string(events)}};
    };
    const uint64_t dataBegin = reservedDataBegin(fixedKeywords(0), body, delimiter);
    std::string text(1, delimiter);
    for (const Keywords& list : {fixedKeywords(dataBegin), body})
        for (const auto& [k, v] : list) {
            text += escaped(k, delimiter) + delimiter;
            text += escaped(v, delimiter) + delimiter;
        }
    const uint64_t textEnd = kTextBegin + text.size() - 1;
    std::string header = "FCS3.1    ";
    header += headerField(kTextBegin) + headerField(textEnd);
    header += dataBytes ? headerField(dataBegin) + headerField(dataBegin + dataBytes - 1)
                        : headerField(0) + headerField(0);
    header += headerField(0) + headerField(0);
    std::string bytes = header + text;
    if (bytes.size() > dataBegin)  // the reservation holds the TEXT by its construction
        throw std::logic_error("FCS writer: the TEXT outgrew the place reserved for it");
    bytes.resize(dataBegin, ' ');
    return bytes;
}

/// Checks that `table` can be written; returns the label columns it writes as codes.
std::vector<const LabelColumn*> checkedLabels(const std::string& path, const Table& table) {
    const size_t stored = table.channels.size();
    if (stored == 0)
        throw InputError("cannot write '" + path + "': the table has no channels to write");
    if (table.values.cols != stored || table.values.values.size() != table.values.rows * stored)
        throw InputError("cannot write '" + path + "': the table has " + std::to_string(stored) +
                         " channels but " + std::to_string(table.values.cols) + " value columns");
    return labelsToWrite(table);
}

/// Writes the rows of `table` as float32 little-endian DATA: its values as they were stored
/// (each divided by its channel's $TIMESTEP / $PnG factor), then its labels' codes.
template <class Sink>
void writeRows(Sink& sink, const Table& table, const std::vector<const LabelColumn*>& labels) {
    const size_t stored = table.channels.size(), cols = stored + labels.size();
    const uint64_t events = table.values.rows;
    const bool swap = std::endian::native != std::endian::little;
    std::vector<double> factor(stored, 1.0);
    std::vector<uint8_t> whole(stored, 0);  // stored as integers: the nearest one again
    bool scaled = false;
    for (size_t c = 0; c < stored; ++c) {
        factor[c] = table.channels[c].storedFactor();
        whole[c] = table.channels[c].integerStored;
        scaled = scaled || factor[c] != 1.0;
    }
    if (!swap && labels.empty() && !scaled) {
        sink.write(table.values.data(), events * cols * 4);
        return;
    }
    // Rows in chunks: the labels' codes join each row, and big-endian hosts swap bytes.
    const size_t chunkRows = 1 << 14;
    std::vector<float> chunk;
    for (size_t r0 = 0; r0 < events; r0 += chunkRows) {
        const size_t n = std::min<size_t>(chunkRows, events - r0);
        chunk.resize(n * cols);
#pragma omp parallel for schedule(static) if (n > 4096)
        for (size_t r = 0; r < n; ++r) {
            std::memcpy(&chunk[r * cols], table.values.row(r0 + r), stored * sizeof(float));
            if (scaled)
                for (size_t c = 0; c < stored; ++c)
                    if (factor[c] != 1.0) {
                        const double v = double(chunk[r * cols + c]) / factor[c];
                        chunk[r * cols + c] = float(whole[c] ? std::nearbyint(v) : v);
                    }
            for (size_t l = 0; l < labels.size(); ++l)
                chunk[r * cols + stored + l] =
                    static_cast<float>(std::max(labels[l]->codes[r0 + r], -1) + 1);
        }
        if (swap)
            for (float& f : chunk) {
                uint32_t u;
                std::memcpy(&u, &f, 4);
                u = __builtin_bswap32(u);
                std::memcpy(&f, &u, 4);
            }
        sink.write(chunk.data(), chunk.size() * sizeof(float));
    }
}

}  // namespace

void writeFcs(const std::string& path, const Table& table) {
    const std::vector<const LabelColumn*> labels = checkedLabels(path, table);
    AtomicFile file(path);
    file.write(headerAndText(table, labels, columnTops(table), table.values.rows));
    writeRows(file, table, labels);
    file.write("00000000");  // the optional CRC, left unset as FCS 3.1 allows
    file.commit();
}

FcsStreamWriter::FcsStreamWriter(const std::string& path) : m_path(path) {}

FcsStreamWriter::~FcsStreamWriter() = default;

void FcsStreamWriter::append(const Table& block) {
    const std::vector<const LabelColumn*> labels = checkedLabels(m_path, block);
    const std::vector<float> tops = columnTops(block);
    if (!m_file) {
        m_layout.source = block.source;
        m_layout.channels = block.channels;
        m_layout.keywords = block.keywords;
        m_layout.spillover = block.spillover;
        m_layout.values = Matrix(0, block.channels.size());
        for (const LabelColumn* l : labels) m_layout.labels.push_back({l->name, l->categories, {}});
        m_tops.assign(block.channels.size(), 0.0f);
        // DATA goes in place from the start: the HEADER and TEXT the first block would have
        // take the place they will take at the end (headerAndText's reservation).
        std::vector<const LabelColumn*> layoutLabels;
        for (const LabelColumn& l : m_layout.labels) layoutLabels.push_back(&l);
        const std::string head = headerAndText(m_layout, layoutLabels, tops, 0);
        m_file = std::make_unique<AtomicFile>(m_path);
        m_file->write(std::string(head.size(), ' '));
        m_dataBegin = head.size();
    } else if (block.channels.size() != m_layout.channels.size() ||
               labels.size() != m_layout.labels.size()) {
        throw InputError("cannot write '" + m_path + "': a block of events has other columns");
    }
    for (size_t c = 0; c < tops.size(); ++c) m_tops[c] = std::max(m_tops[c], tops[c]);
    writeRows(*m_file, block, labels);
    m_file->startWriteback();
    m_events += block.values.rows;
}

void FcsStreamWriter::commit(const Table* layout) {
    if (!m_file) throw InputError("cannot write '" + m_path + "': no events");
    const Table& final = layout ? *layout : m_layout;
    if (final.channels.size() != m_layout.channels.size())
        throw InputError("cannot write '" + m_path + "': the layout has other channels");
    std::vector<const LabelColumn*> labels;
    for (const LabelColumn& l : m_layout.labels) labels.push_back(&l);
    const std::string head = headerAndText(final, labels, m_tops, m_events);
    m_file->write("00000000");  // the optional CRC, left unset as FCS 3.1 allows
    if (head.size() == m_dataBegin) {
        m_file->writeAt(0, head);
        m_file->commit();
        m_file.reset();
        return;
    }
    // The final layout's keywords take another place (a value that was not a number changed):
    // the DATA is copied after them into a new file.
    AtomicFile moved(m_path);
    moved.write(head);
    m_file->copyTo(moved, m_dataBegin);
    moved.commit();
    m_file.reset();
}

}  // namespace sepal::io
