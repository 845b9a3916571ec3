#include "core/io/spillover_file.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/common/error.h"
#include "core/common/number_text.h"
#include "core/io/regular_file.h"

namespace sepal::io {
namespace {

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && (std::isspace(static_cast<unsigned char>(s[a])) || s[a] == '"')) ++a;
    while (b > a && (std::isspace(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '"')) --b;
    return s.substr(a, b - a);
}

std::vector<std::string> splitFields(const std::string& line, char separator) {
    std::vector<std::string> out;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, separator)) out.push_back(trim(field));
    if (!line.empty() && line.back() == separator) out.emplace_back();
    return out;
}

// A cell as a finite number, or nothing: a row name is not a number.
bool parseNumber(const std::string& cell, double& value) {
    if (cell.empty()) return false;
    char* end = nullptr;
    value = std::strtod(cell.c_str(), &end);
    return end == cell.c_str() + cell.size() && std::isfinite(value);
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
    throw InputError(source + ": not a spillover matrix: " + what +
                     " (expected a header row of channel names and one row of numbers per "
                     "channel, or the $SPILLOVER form n,names...,values...)");
}

Spillover fromKeywordForm(const std::vector<std::string>& f, const std::string& source) {
    double count = 0;
    if (!parseNumber(f[0], count) || count < 1 || count != std::floor(count))
        fail(source, "the first value '" + f[0] + "' is not a channel count");
    const size_t n = size_t(count);
    if (f.size() != 1 + n + n * n)
        fail(source, std::to_string(n) + " channels need " + std::to_string(1 + n + n * n) +
                         " values, found " + std::to_string(f.size()));
    Spillover sp;
    sp.channels.assign(f.begin() + 1, f.begin() + 1 + long(n));
    sp.matrix = Matrix(n, n);
    for (size_t i = 0; i < n * n; ++i) {
        double v = 0;
        if (!parseNumber(f[1 + n + i], v))
            fail(source, "value " + std::to_string(i + 1) + " '" + f[1 + n + i] +
                             "' is not a finite number");
        sp.matrix.data()[i] = float(v);
    }
    return sp;
}

}  // namespace

Spillover parseSpillover(const std::string& text, const std::string& source) {
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line, '\n')) {
        // CR and CRLF endings alike.
        std::istringstream parts(line);
        std::string piece;
        while (std::getline(parts, piece, '\r'))
            if (!trim(piece).empty()) lines.push_back(piece);
    }
    if (lines.empty()) fail(source, "the file is empty");
    const std::string& head = lines.front();
    char separator = ',';
    for (char c : {'\t', ';'})
        if (head.find(c) != std::string::npos && head.find(',') == std::string::npos) separator = c;
    if (lines.size() == 1) return fromKeywordForm(splitFields(head, separator), source);

    std::vector<std::string> names = splitFields(head, separator);
    if (!names.empty() && names.front().starts_with("#"))
        names.front() = trim(names.front().substr(1));
    // A leading empty header cell stands above a column of row names.
    const bool rowNamesInHeader = !names.empty() && names.front().empty();
    if (rowNamesInHeader) names.erase(names.begin());
    while (!names.empty() && names.back().empty()) names.pop_back();
    const size_t n = names.size();
    if (n == 0) fail(source, "the header row names no channels");
    for (const auto& name : names)
        if (name.empty()) fail(source, "the header row has an empty channel name");
    if (lines.size() - 1 < n)
        fail(source, std::to_string(n) + " channels in the header but only " +
                         std::to_string(lines.size() - 1) + " rows of values");
    Spillover sp;
    sp.channels = names;
    sp.matrix = Matrix(n, n);
    for (size_t r = 0; r < n; ++r) {
        std::vector<std::string> cells = splitFields(lines[1 + r], separator);
        double probe = 0;
        // Rows led by their channel's name (the usual layout of exported matrices).
        if (!cells.empty() && (rowNamesInHeader || !parseNumber(cells.front(), probe)) &&
            cells.size() >= n + 1)
            cells.erase(cells.begin());
        while (cells.size() > n && cells.back().empty()) cells.pop_back();
        if (cells.size() != n)
            fail(source, "row " + std::to_string(r + 2) + " has " + std::to_string(cells.size()) +
                             " values for " + std::to_string(n) + " channels");
        for (size_t c = 0; c < n; ++c) {
            double v = 0;
            if (!parseNumber(cells[c], v))
                fail(source, "row " + std::to_string(r + 2) + ", column " + std::to_string(c + 1) +
                                 ": '" + cells[c] + "' is not a finite number");
            sp.matrix.at(r, c) = float(v);
        }
    }
    if (lines.size() - 1 > n)
        fail(source, std::to_string(lines.size() - 1) + " rows of values for " + std::to_string(n) +
                         " channels; the matrix must be square");
    return sp;
}

Spillover readSpilloverFile(const std::string& path) {
    requireRegularFile(path);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw InputError(path + ": no such spillover file; check the path");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) throw InputError(path + ": cannot read the spillover file");
    return parseSpillover(text.str(), path);
}

std::string spilloverCsv(const Spillover& spillover, const std::string& path) {
    const size_t n = spillover.channels.size();
    if (n == 0 || spillover.matrix.rows != n || spillover.matrix.cols != n)
        throw InputError("cannot write the spillover matrix '" + path + "': it has " +
                         std::to_string(n) + " channels and " +
                         std::to_string(spillover.matrix.rows) + " x " +
                         std::to_string(spillover.matrix.cols) + " values");
    for (const std::string& name : spillover.channels)
        if (name.find_first_of(",\"\r\n") != std::string::npos)
            throw InputError("cannot write the spillover matrix '" + path + "': channel '" + name +
                             "' has a comma, quote or line break in its name");
    std::string text;
    for (const std::string& name : spillover.channels) text += "," + name;
    text += '\n';
    for (size_t r = 0; r < n; ++r) {
        text += spillover.channels[r];
        for (size_t c = 0; c < n; ++c) {
            text += ',' + shortestFloat(spillover.matrix.at(r, c));
        }
        text += '\n';
    }
    return text;
}

std::string spilloverBeside(const std::string& tablePath) {
    std::filesystem::path p(tablePath);
    p.replace_extension(".spillover.csv");
    return p.string();
}

std::optional<Spillover> readSpilloverBeside(const std::string& tablePath) {
    const std::string path = spilloverBeside(tablePath);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    return readSpilloverFile(path);
}

}  // namespace sepal::io
