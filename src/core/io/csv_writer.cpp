#include "core/io/csv_writer.h"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <vector>

#include "core/common/error.h"
#include "core/io/atomic_file.h"
#include "core/io/spillover_file.h"

namespace sepal::io {

namespace {

void appendText(std::string& out, const std::string& text) {
    const bool quote = text.find_first_of(",\"\r\n") != std::string::npos ||
                       (!text.empty() && (text.front() == ' ' || text.back() == ' ' ||
                                          text.front() == '\t' || text.back() == '\t'));
    if (!quote) {
        out += text;
        return;
    }
    out += '"';
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

void appendNumber(std::string& out, float v) {
    if (std::isnan(v)) {
        out += "NaN";
    } else if (std::isinf(v)) {
        out += v > 0 ? "Inf" : "-Inf";
    } else {
        char buffer[32];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
        out.append(buffer, result.ptr);
    }
}

}  // namespace

CsvStreamWriter::CsvStreamWriter(const std::string& path)
    : m_file(std::make_unique<AtomicFile>(path)) {}

CsvStreamWriter::~CsvStreamWriter() = default;

void CsvStreamWriter::append(const Table& table) {
    const std::string& path = m_file->path();
    const size_t rows = table.events();
    const size_t columns = table.values.cols;
    if (columns != table.channels.size() || table.values.values.size() != rows * columns)
        throw InputError("cannot write '" + path + "': the table has " +
                         std::to_string(table.channels.size()) + " channels but " +
                         std::to_string(columns) + " value columns");
    for (const auto& label : table.labels) {
        if (label.codes.size() != rows)
            throw InputError("cannot write '" + path + "': label column \"" + label.name +
                             "\" has " + std::to_string(label.codes.size()) + " values for " +
                             std::to_string(rows) + " events");
        for (int32_t code : label.codes)
            if (code >= static_cast<int32_t>(label.categories.size()))
                throw InputError("cannot write '" + path + "': label column \"" + label.name +
                                 "\" uses code " + std::to_string(code) + " beyond its " +
                                 std::to_string(label.categories.size()) + " categories");
    }
    if (columns + table.labels.size() == 0)
        throw InputError("cannot write '" + path + "': the table has no columns");

    std::string header;
    bool first = true;
    for (const auto& c : table.channels) {
        if (!first) header += ',';
        appendText(header, c.name);
        first = false;
    }
    for (const auto& l : table.labels) {
        if (!first) header += ',';
        appendText(header, l.name);
        first = false;
    }
    header += '\n';
    // The first block writes the header; the next ones must have the same columns.
    if (m_header.empty()) {
        m_header = header;
        m_spillover = table.spillover;
        m_file->write(header);
    } else if (header != m_header) {
        throw InputError("cannot write '" + path + "': a block of events has other columns");
    }

    // Rows are formatted in parallel blocks and written in order.
    constexpr size_t kBlockRows = 8192;
    const size_t threads = static_cast<size_t>(std::max(1, omp_get_max_threads()));
    std::vector<std::string> buffers(threads);
    for (size_t start = 0; start < rows; start += kBlockRows * threads) {
        const size_t blocks = std::min(threads, (rows - start + kBlockRows - 1) / kBlockRows);
#pragma omp parallel for schedule(static, 1) if (blocks > 1)
        for (size_t b = 0; b < blocks; ++b) {
            std::string& out = buffers[b];
            out.clear();
            const size_t from = start + b * kBlockRows;
            const size_t to = std::min(rows, from + kBlockRows);
            for (size_t i = from; i < to; ++i) {
                const float* row = table.values.row(i);
                for (size_t j = 0; j < columns; ++j) {
                    if (j) out += ',';
                    appendNumber(out, row[j]);
                }
                for (size_t k = 0; k < table.labels.size(); ++k) {
                    if (columns + k) out += ',';
                    const int32_t code = table.labels[k].codes[i];
                    if (code >= 0)
                        appendText(out, table.labels[k].categories[static_cast<size_t>(code)]);
                    else if (columns + k == 0)
                        out += "\"\"";  // an empty line would read back as no row at all
                }
                out += '\n';
            }
        }
        for (size_t b = 0; b < blocks; ++b) m_file->write(buffers[b]);
        m_file->startWriteback();
    }
}

void CsvStreamWriter::commit() {
    if (m_header.empty()) throw InputError("cannot write '" + m_file->path() + "': no events");
    // The matrix is made before the table appears, so that a matrix that cannot be written
    // leaves neither file.
    const std::string beside = spilloverBeside(m_file->path());
    std::optional<AtomicFile> matrix;
    if (m_spillover) {
        const std::string text = spilloverCsv(*m_spillover, beside);
        matrix.emplace(beside);
        matrix->write(text);
    }
    m_file->commit();
    if (matrix) {
        matrix->commit();
    } else {
        std::error_code ec;
        std::filesystem::remove(beside, ec);
    }
}

void writeCsv(const std::string& path, const Table& table) {
    CsvStreamWriter writer(path);
    writer.append(table);
    writer.commit();
}

std::string csvField(const std::string& text) {
    std::string out;
    appendText(out, text);
    return out;
}

}  // namespace sepal::io
