#include "core/io/csv_reader.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/common/error.h"
#include "core/io/channel_headers.h"
#include "core/io/mapped_file.h"
#include "core/io/spillover_file.h"

namespace sepal::io {

namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();

/// A syntax problem at a line (relative to where parsing started) and a 1-based field number.
struct SyntaxError {
    size_t line;
    size_t field;
    std::string what;
};

/// A cell that is not a number, in a column that may still turn out numeric.
struct BadCell {
    size_t line;  ///< relative to where its part started
    size_t column;
    std::string value;
};

/// Bad cells kept per column for the message: enough to show the pattern, few enough to read.
constexpr size_t kBadCellsShown = 5;

/// Whether `bytes` holds a carriage return not followed by a line feed (old Mac line endings).
bool hasBareCarriageReturn(std::string_view bytes) {
    for (size_t at = bytes.find('\r'); at != std::string_view::npos; at = bytes.find('\r', at + 1))
        if (at + 1 == bytes.size() || bytes[at + 1] != '\n') return true;
    return false;
}

/// `bytes` with every bare carriage return made a line feed (CRLF stays as it is).
std::string withLineFeeds(std::string_view bytes) {
    std::string out(bytes);
    for (size_t i = 0; i < out.size(); ++i)
        if (out[i] == '\r' && (i + 1 == out.size() || out[i + 1] != '\n')) out[i] = '\n';
    return out;
}

/// One field as it lies in the bytes: quotes removed, doubled quotes not yet collapsed.
struct Field {
    std::string_view text;
    bool escaped = false;  ///< holds doubled quotes that must be collapsed
    bool quoted = false;   ///< was quoted: its spaces are part of the value
};

std::string collapseQuotes(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        out.push_back(text[i]);
        if (text[i] == '"' && i + 1 < text.size() && text[i + 1] == '"') ++i;
    }
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const char x = (a[i] >= 'A' && a[i] <= 'Z') ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
        if (x != b[i]) return false;
    }
    return true;
}

/// Cells that stand for a missing value in the files that R, pandas and spreadsheets write.
bool isMissingToken(std::string_view s) {
    return s.empty() || equalsIgnoreCase(s, "na") || equalsIgnoreCase(s, "nan") ||
           equalsIgnoreCase(s, "n/a") || equalsIgnoreCase(s, "#n/a") || equalsIgnoreCase(s, "null");
}

/// Parses a numeric cell (missing tokens give NaN); false when the cell is text.
/// `decimalComma`: semicolon-separated files often write 1,5 for 1.5.
bool parseNumber(std::string_view cell, bool decimalComma, float& out) {
    const std::string_view s = trim(cell);
    if (s.empty()) {
        out = kMissing;
        return true;
    }
    const char* b = s.data();
    const char* e = b + s.size();
    if (*b == '+' && e - b > 1) ++b;
    auto [p, ec] = std::from_chars(b, e, out);
    if (p == e && ec == std::errc()) return true;
    if (p == e && ec == std::errc::result_out_of_range) {
        double wide = 0;  // beyond float's range: the nearest float (infinity or zero)
        if (std::from_chars(b, e, wide).ec == std::errc::result_out_of_range) {
            // Beyond double's range too (1e400): from_chars leaves `wide` alone, so decide by
            // the exponent's sign; a silent 0 would be a wrong value, infinity is missing.
            const size_t exponent = s.find_first_of("eE");
            const bool tiny = exponent != std::string_view::npos && exponent + 1 < s.size() &&
                              s[exponent + 1] == '-';
            wide = tiny ? 0.0 : std::numeric_limits<double>::infinity();
            if (s.front() == '-') wide = -wide;
        }
        out = static_cast<float>(wide);
        return true;
    }
    if (isMissingToken(s)) {
        out = kMissing;
        return true;
    }
    if (decimalComma && s.size() < 64 && s.find(',') != std::string_view::npos &&
        s.find('.') == std::string_view::npos) {
        std::array<char, 64> buffer{};
        std::copy(b, e, buffer.begin());
        std::replace(buffer.begin(), buffer.begin() + (e - b), ',', '.');
        auto r = std::from_chars(buffer.data(), buffer.data() + (e - b), out);
        return r.ptr == buffer.data() + (e - b) && r.ec == std::errc();
    }
    return false;
}

/// Walks the records of [p, end): calls onField(index, field) for every field and
/// onRecord(fieldCount, line) after each record; blank lines are skipped. `line` counts the
/// newlines consumed (relative to p). Throws SyntaxError.
template <class OnField, class OnRecord>
void walkRecords(const char* p, const char* end, char delimiter, size_t& line, OnField&& onField,
                 OnRecord&& onRecord) {
    while (p < end) {
        const char* q = p;
        while (q < end && (*q == ' ' || *q == '\r')) ++q;
        if (q == end) return;
        if (*q == '\n') {
            p = q + 1;
            ++line;
            continue;
        }
        const size_t recordLine = line;
        size_t index = 0;
        bool last = false;
        while (!last) {
            Field field;
            if (p < end && *p == '"') {
                const char* start = ++p;
                const size_t openLine = line;
                for (;;) {
                    const char* quote =
                        static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
                    if (!quote)
                        throw SyntaxError{openLine, index + 1,
                                          "a quoted field is never closed (add the closing "
                                          "double quote)"};
                    line += static_cast<size_t>(std::count(p, quote, '\n'));
                    if (quote + 1 < end && quote[1] == '"') {
                        field.escaped = true;
                        p = quote + 2;
                        continue;
                    }
                    field.text = std::string_view(start, static_cast<size_t>(quote - start));
                    field.quoted = true;
                    p = quote + 1;
                    break;
                }
                while (p < end && *p == ' ') ++p;
                if (p == end) {
                    last = true;
                } else if (*p == delimiter) {
                    ++p;
                } else if (*p == '\n') {
                    ++p;
                    ++line;
                    last = true;
                } else if (*p == '\r' && (p + 1 == end || p[1] == '\n')) {
                    p += (p + 1 == end) ? 1 : 2;
                    if (p <= end && p[-1] == '\n') ++line;
                    last = true;
                } else {
                    throw SyntaxError{line, index + 1,
                                      "unexpected text after a closing double quote (a quote "
                                      "inside a quoted field must be doubled)"};
                }
            } else {
                const char* q2 = p;
                while (q2 < end && *q2 != delimiter && *q2 != '\n') ++q2;
                const char* textEnd = q2;
                if (q2 == end || *q2 == '\n') {
                    if (textEnd > p && textEnd[-1] == '\r') --textEnd;
                    last = true;
                }
                field.text = std::string_view(p, static_cast<size_t>(textEnd - p));
                if (q2 < end && *q2 == '\n') ++line;
                p = q2 < end ? q2 + 1 : end;
            }
            onField(index, field);
            ++index;
        }
        onRecord(index, recordLine);
    }
}

/// Picks the delimiter that splits the first lines into the same number (> 0) of fields.
char detectDelimiter(std::string_view text) {
    constexpr std::array<char, 3> kCandidates{'\t', ',', ';'};
    std::array<std::vector<size_t>, 3> counts;
    size_t lines = 0;
    bool quoted = false;
    std::array<size_t, 3> current{};
    const size_t limit = std::min<size_t>(text.size(), 1 << 16);
    for (size_t i = 0; i < limit && lines < 32; ++i) {
        const char c = text[i];
        if (c == '"') quoted = !quoted;
        if (quoted) continue;
        for (size_t k = 0; k < 3; ++k)
            if (c == kCandidates[k]) ++current[k];
        if (c == '\n') {
            for (size_t k = 0; k < 3; ++k) counts[k].push_back(current[k]);
            current = {};
            ++lines;
        }
    }
    if (lines == 0 || current != std::array<size_t, 3>{})
        for (size_t k = 0; k < 3; ++k) counts[k].push_back(current[k]);
    char best = ',';
    size_t bestCount = 0;
    bool bestConsistent = false;
    for (size_t k = 0; k < 3; ++k) {
        const auto& c = counts[k];
        if (c.empty() || c.front() == 0) continue;
        // The last line may be cut by the sampling limit: it does not break consistency.
        const bool consistent = std::all_of(c.begin(), c.end() - (c.size() > 1 ? 1 : 0),
                                            [&](size_t n) { return n == c.front() || n == 0; });
        if ((consistent && !bestConsistent) ||
            (consistent == bestConsistent && c.front() > bestCount)) {
            best = kCandidates[k];
            bestCount = c.front();
            bestConsistent = consistent;
        }
    }
    return best;
}

std::string delimiterName(char d) {
    if (d == '\t') return "tab";
    if (d == ';') return "semicolon";
    return "comma";
}

/// Splits [begin, end) into about `parts` pieces that start at line starts.
std::vector<const char*> splitAtLines(const char* begin, const char* end, size_t parts) {
    std::vector<const char*> cuts{begin};
    const size_t size = static_cast<size_t>(end - begin);
    for (size_t i = 1; i < parts; ++i) {
        const char* at = begin + size * i / parts;
        if (at <= cuts.back()) continue;
        const char* nl =
            static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at)));
        if (!nl) break;
        if (nl + 1 > cuts.back() && nl + 1 < end) cuts.push_back(nl + 1);
    }
    cuts.push_back(end);
    return cuts;
}

}  // namespace

Table parseCsv(std::string_view bytes, const CsvReadOptions& options, const std::string& source) {
    if (options.delimiter != 0 && options.delimiter != ',' && options.delimiter != '\t' &&
        options.delimiter != ';')
        throw InputError(source + ": unsupported delimiter '" + std::string(1, options.delimiter) +
                         "' (use comma, tab or semicolon)");
    if (bytes.size() >= 3 && bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);
    // CR-only line endings (old Mac files) read as LF, not as one row of many columns.
    std::string lineFeeds;
    if (hasBareCarriageReturn(bytes)) {
        lineFeeds = withLineFeeds(bytes);
        bytes = lineFeeds;
    }
    const char delimiter = options.delimiter ? options.delimiter : detectDelimiter(bytes);
    const bool decimalComma = delimiter == ';';

    const char* begin = bytes.data();
    const char* end = begin + bytes.size();
    auto locate = [&](size_t line, size_t field, const std::vector<std::string>* names) {
        std::string where =
            source + ": line " + std::to_string(line) + ", column " + std::to_string(field);
        if (names && field >= 1 && field <= names->size())
            where += " (\"" + (*names)[field - 1] + "\")";
        return where;
    };

    // The first record decides the number of columns and, maybe, their names.
    std::vector<std::string> first;
    size_t firstLine = 0;  // newlines before the first record ends
    const char* dataStart = begin;
    {
        size_t line = 0;
        const char* p = begin;
        // Find where the first record ends by walking records one at a time.
        while (p < end && first.empty()) {
            const char* q = p;
            while (q < end && (*q == ' ' || *q == '\r')) ++q;
            if (q == end) break;
            if (*q == '\n') {
                p = q + 1;
                ++line;
                continue;
            }
            // Bound the walk to this record: a quote-aware scan to the end of the record.
            const char* r = p;
            bool quoted = false;
            while (r < end && (quoted || *r != '\n')) {
                if (*r == '"') quoted = !quoted;
                ++r;
            }
            const char* recordEnd = r < end ? r + 1 : end;
            try {
                walkRecords(
                    p, recordEnd, delimiter, line,
                    [&](size_t, const Field& f) {
                        first.push_back(f.escaped ? collapseQuotes(f.text) : std::string(f.text));
                    },
                    [](size_t, size_t) {});
            } catch (const SyntaxError& e) {
                throw InputError(locate(e.line + 1, e.field, nullptr) + ": " + e.what);
            }
            p = recordEnd;
        }
        firstLine = line;
        dataStart = p;
    }
    if (first.empty())
        throw InputError(source + ": no rows found (the file is empty or holds only blank lines)");

    bool hasHeader = options.header == CsvHeader::Present;
    if (options.header == CsvHeader::Auto) {
        float ignored = 0;
        hasHeader = std::any_of(first.begin(), first.end(), [&](const std::string& s) {
            return !parseNumber(s, decimalComma, ignored);
        });
    }
    const size_t columns = first.size();
    std::vector<std::string> names(columns);
    Table table;
    table.source = source;
    // Names seen so far in a set: a header of tens of thousands of columns stays linear.
    std::unordered_set<std::string> seen;
    for (size_t c = 0; c < columns; ++c) {
        std::string name = hasHeader ? std::string(trim(first[c])) : std::string();
        if (name.empty()) name = "V" + std::to_string(c + 1);
        if (seen.count(name)) {
            const std::string renamed = name + "_" + std::to_string(c + 1);
            table.warnings.push_back("column " + std::to_string(c + 1) + " repeats the name \"" +
                                     name + "\"; it is named \"" + renamed + "\"");
            name = renamed;
        }
        seen.insert(name);
        names[c] = std::move(name);
    }
    size_t lineOffset = 1;  // 1-based line number of dataStart
    if (hasHeader) {
        lineOffset += firstLine;
    } else {
        dataStart = begin;
    }

    // Numeric pass: every cell parsed as a number, text cells counted per column (see below).
    const bool anyQuote =
        std::memchr(dataStart, '"', static_cast<size_t>(end - dataStart)) != nullptr;
    const size_t threads = static_cast<size_t>(std::max(1, omp_get_max_threads()));
    const size_t bytesPerPart = 4u << 20;
    const size_t wanted =
        anyQuote ? 1
                 : std::clamp<size_t>(static_cast<size_t>(end - dataStart) / bytesPerPart, 1,
                                      threads * 4);
    const std::vector<const char*> cuts = splitAtLines(dataStart, end, wanted);
    const size_t parts = cuts.size() - 1;
    std::vector<std::vector<float>> partValues(parts);
    std::vector<std::vector<size_t>> partText(parts, std::vector<size_t>(columns, 0));
    std::vector<std::vector<size_t>> partNumbers(parts, std::vector<size_t>(columns, 0));
    std::vector<std::vector<BadCell>> partBad(parts);
    std::vector<size_t> partLines(parts, 0);
    std::vector<std::optional<SyntaxError>> partErrors(parts);

#pragma omp parallel for schedule(dynamic, 1) if (parts > 1)
    for (size_t part = 0; part < parts; ++part) {
        auto& values = partValues[part];
        auto& text = partText[part];
        auto& numbers = partNumbers[part];
        auto& bad = partBad[part];
        std::vector<size_t> shown(columns, 0);
        size_t pendingBad = bad.size();  // bad cells of the current record, line not yet known
        const size_t rowBytesGuess = std::max<size_t>(columns * 4, 8);
        values.reserve(static_cast<size_t>(cuts[part + 1] - cuts[part]) / rowBytesGuess * columns +
                       columns);
        size_t line = 0;
        std::string scratch;
        try {
            size_t rowStart = values.size();
            walkRecords(
                cuts[part], cuts[part + 1], delimiter, line,
                [&](size_t index, const Field& f) {
                    if (index == 0) {
                        rowStart = values.size();
                        pendingBad = bad.size();
                    }
                    if (index >= columns) return;
                    float v = kMissing;
                    std::string_view cell = f.text;
                    if (f.escaped) {
                        scratch = collapseQuotes(f.text);
                        cell = scratch;
                    }
                    if (!parseNumber(cell, decimalComma, v)) {
                        ++text[index];
                        v = kMissing;
                        if (shown[index]++ < kBadCellsShown)
                            bad.push_back(BadCell{0, index, std::string(trim(cell))});
                    } else if (!isMissingToken(trim(cell))) {
                        ++numbers[index];
                    }
                    values.push_back(v);
                },
                [&](size_t count, size_t recordLine) {
                    for (size_t b = pendingBad; b < bad.size(); ++b) bad[b].line = recordLine;
                    if (count != columns) {
                        values.resize(rowStart);
                        throw SyntaxError{recordLine, count < columns ? count + 1 : columns + 1,
                                          "this row has " + std::to_string(count) +
                                              " fields but the " +
                                              (hasHeader ? std::string("header has ")
                                                         : std::string("first row has ")) +
                                              std::to_string(columns) + " (check the delimiter, " +
                                              delimiterName(delimiter) + ", and quoting)"};
                    }
                });
        } catch (const SyntaxError& e) {
            partErrors[part] = e;
        }
        partLines[part] = line;
    }
    size_t lineBase = lineOffset;
    for (size_t part = 0; part < parts; ++part) {
        if (partErrors[part]) {
            const auto& e = *partErrors[part];
            throw InputError(locate(lineBase + e.line, e.field, &names) + ": " + e.what);
        }
        lineBase += partLines[part];
    }

    // A column is a label column when at least half of its non-missing cells are not numbers;
    // a mostly numeric column with some text cells is an error that lists them (a typo such as
    // 1.5e must not silently turn a channel into labels).
    std::vector<size_t> textCells(columns, 0), numberCells(columns, 0);
    std::vector<std::vector<std::string>> badShown(columns);
    size_t rows = 0;
    lineBase = lineOffset;
    for (size_t part = 0; part < parts; ++part) {
        rows += partValues[part].size() / columns;
        for (size_t c = 0; c < columns; ++c) {
            textCells[c] += partText[part][c];
            numberCells[c] += partNumbers[part][c];
        }
        for (const BadCell& b : partBad[part])
            if (badShown[b.column].size() < kBadCellsShown)
                badShown[b.column].push_back("line " + std::to_string(lineBase + b.line) + ": \"" +
                                             b.value + "\"");
        lineBase += partLines[part];
    }
    std::vector<size_t> numeric;
    std::vector<size_t> textual;
    for (size_t c = 0; c < columns; ++c) {
        if (textCells[c] == 0) {
            numeric.push_back(c);
        } else if (textCells[c] * 2 >= textCells[c] + numberCells[c]) {
            textual.push_back(c);
        } else {
            std::string list;
            for (const std::string& cell : badShown[c]) list += (list.empty() ? "" : ", ") + cell;
            if (textCells[c] > badShown[c].size()) list += ", ...";
            throw InputError(source + ": column " + std::to_string(c + 1) + " (\"" + names[c] +
                             "\") holds numbers but " + std::to_string(textCells[c]) + " of its " +
                             std::to_string(textCells[c] + numberCells[c]) +
                             " cells are not numbers (" + list +
                             "); correct them, or leave them empty or NA for a missing value");
        }
    }

    table.values = Matrix(rows, numeric.size());
    std::vector<size_t> partRow(parts + 1, 0);
    for (size_t part = 0; part < parts; ++part)
        partRow[part + 1] = partRow[part] + partValues[part].size() / columns;
#pragma omp parallel for schedule(dynamic, 1) if (parts > 1)
    for (size_t part = 0; part < parts; ++part) {
        const auto& src = partValues[part];
        const size_t n = src.size() / columns;
        float* dst = table.values.row(partRow[part]);
        if (textual.empty()) {
            std::copy(src.begin(), src.end(), dst);
        } else {
            for (size_t i = 0; i < n; ++i)
                for (size_t k = 0; k < numeric.size(); ++k)
                    dst[i * numeric.size() + k] = src[i * columns + numeric[k]];
        }
        std::vector<float>().swap(partValues[part]);
    }
    for (size_t c : numeric) table.channels.push_back(Channel{names[c], "", 0.0, 32});

    // Text pass (only when some column holds text): categories in order of first appearance.
    if (!textual.empty()) {
        std::vector<int> slot(columns, -1);
        std::vector<std::unordered_map<std::string, int32_t>> lookup(textual.size());
        for (size_t k = 0; k < textual.size(); ++k) {
            slot[textual[k]] = static_cast<int>(k);
            LabelColumn label;
            label.name = names[textual[k]];
            label.codes.reserve(rows);
            table.labels.push_back(std::move(label));
        }
        size_t line = 0;
        walkRecords(
            dataStart, end, delimiter, line,
            [&](size_t index, const Field& f) {
                if (index >= columns || slot[index] < 0) return;
                const size_t k = static_cast<size_t>(slot[index]);
                auto& label = table.labels[k];
                std::string value = f.escaped  ? collapseQuotes(f.text)
                                    : f.quoted ? std::string(f.text)
                                               : std::string(trim(f.text));
                if (isMissingToken(trim(value))) {
                    label.codes.push_back(-1);
                    return;
                }
                auto [it, added] =
                    lookup[k].try_emplace(value, static_cast<int32_t>(label.categories.size()));
                if (added) label.categories.push_back(std::move(value));
                label.codes.push_back(it->second);
            },
            [](size_t, size_t) {});
    }
    splitChannelHeaders(table);
    return table;
}

Table readCsv(const std::string& path, const CsvReadOptions& options) {
    const MappedFile file(path);
    const auto bytes = file.bytes();
    Table table = parseCsv(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), options, path);
    // CSV has no keywords: a table of uncompensated values keeps its matrix beside it.
    table.spillover = readSpilloverBeside(path);
    return table;
}

}  // namespace sepal::io
