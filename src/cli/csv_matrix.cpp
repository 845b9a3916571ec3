#include "cli/csv_matrix.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/io/atomic_file.h"
#include "core/io/regular_file.h"

namespace sepal::cli {

namespace {

bool isSeparator(char c) {
    return c == ',' || c == ';' || c == '\t' || c == ' ';
}

// Splits a line into fields; with `numeric`, parses them into `out`. Returns false (and the
// 1-based column of the first bad field in `badColumn`) when a field is not a number.
bool parseLine(const std::string& line, std::vector<float>& out, size_t& badColumn) {
    out.clear();
    size_t i = 0, column = 0;
    const bool spaces = line.find_first_of(",;\t") == std::string::npos;
    while (i <= line.size()) {
        // Space-separated files may repeat spaces; other separators delimit empty fields.
        if (spaces)
            while (i < line.size() && line[i] == ' ') ++i;
        if (spaces && i == line.size()) break;
        size_t end = i;
        while (end < line.size() &&
               !(spaces ? line[end] == ' ' : isSeparator(line[end]) && line[end] != ' '))
            ++end;
        std::string field = line.substr(i, end - i);
        ++column;
        while (!field.empty() && (field.back() == ' ' || field.back() == '\r')) field.pop_back();
        while (!field.empty() && field.front() == ' ') field.erase(field.begin());
        if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
            field = field.substr(1, field.size() - 2);
        if (field.empty() || field == "NA") {
            out.push_back(std::nanf(""));
        } else {
            char* stop = nullptr;
            errno = 0;
            const double v = std::strtod(field.c_str(), &stop);
            if (stop != field.c_str() + field.size()) {
                badColumn = column;
                return false;
            }
            out.push_back(static_cast<float>(v));
        }
        i = end + 1;
    }
    return true;
}

}  // namespace

Matrix readCsvMatrix(const std::string& path) {
    io::requireRegularFile(path);
    std::ifstream file(path, std::ios::binary);
    if (!file)
        throw InputError("cannot open '" + path + "': check that the file exists and is readable");
    // Lines end in LF, CRLF or a bare CR (old Mac files): a bare CR becomes LF before splitting,
    // or the whole file would read as one line.
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    for (size_t i = 0; i < bytes.size(); ++i)
        if (bytes[i] == '\r' && (i + 1 == bytes.size() || bytes[i + 1] != '\n')) bytes[i] = '\n';
    std::istringstream in(std::move(bytes));
    Matrix m;
    std::string line;
    std::vector<float> row;
    size_t lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        size_t bad = 0;
        if (!parseLine(line, row, bad)) {
            if (m.rows == 0 && m.cols == 0 && lineNo == 1) continue;  // a header row
            throw InputError(path + ": line " + std::to_string(lineNo) + ", column " +
                             std::to_string(bad) +
                             ": not a number; the file must hold a numeric matrix");
        }
        if (m.cols == 0) m.cols = row.size();
        if (row.size() != m.cols)
            throw InputError(path + ": line " + std::to_string(lineNo) + " has " +
                             std::to_string(row.size()) + " values, the lines before it " +
                             std::to_string(m.cols) + "; every row needs the same count");
        m.values.insert(m.values.end(), row.begin(), row.end());
        ++m.rows;
    }
    if (m.rows == 0) throw InputError(path + ": no numeric rows found");
    return m;
}

void writeCsvPoints(const std::string& path, const Matrix& points) {
    io::writeFileAtomically(path, [&](std::ostream& out) {
        char buf[64];
        for (size_t i = 0; i < points.rows; ++i) {
            const int len =
                std::snprintf(buf, sizeof buf, "%.9g,%.9g\n", points.at(i, 0), points.at(i, 1));
            out.write(buf, len);
        }
    });
}

}  // namespace sepal::cli
