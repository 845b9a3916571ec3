#include "core/io/read_any.h"

#include <algorithm>
#include <fstream>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/csv_reader.h"
#include "core/io/fcs_reader.h"
#include "core/io/points_json.h"
#include "core/io/population_labels.h"
#include "core/io/regular_file.h"

namespace sepal::io {

namespace {

/// True when a file's first bytes are FCS's magic.
bool isFcsHead(const std::string& head) {
    return head.rfind("FCS", 0) == 0;
}

Table readByContent(const std::string& path, const std::string& head) {
    if (isFcsHead(head)) {
        Table table = readFcs(path);
        recoverPopulationLabels(table);
        return table;
    }
    const std::string ext = lowerExtension(path);
    // A .fcs name promises FCS: reading such a file as text would report a table without events.
    if (ext == ".fcs")
        throw InputError(path + ": not an FCS file (it does not start with 'FCS'); " +
                         (head.empty() ? std::string("it is empty")
                                       : std::string("it may be damaged or another kind of file")) +
                         ": Sepal reads FCS 2.0-3.2, and CSV/TSV or points JSON named .csv, "
                         ".tsv, .txt or .json");
    if (head.empty()) throw InputError(path + ": holds no events (the file is empty)");
    if (ext == ".json") return readPointsJson(path);
    const bool text = head.find('\0') == std::string::npos;
    if (ext == ".csv" || ext == ".tsv" || ext == ".txt" || text) {
        if (!text)
            throw InputError(path +
                             ": holds binary bytes, not delimited text; expected an FCS "
                             "file (starting with \"FCS\"), CSV/TSV or points JSON");
        return readCsv(path);
    }
    throw InputError(path +
                     ": not an FCS file (it does not start with 'FCS'), nor CSV/TSV text, "
                     "nor points JSON; Sepal reads FCS 2.0-3.2, CSV, TSV and JSON point lists");
}

}  // namespace

Table readTable(const std::string& path) {
    requireRegularFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot open '" + path + "' (check the path and permissions)");
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    in.close();

    Table table = readByContent(path, head);
    if (table.events() == 0)
        throw InputError(path + ": holds no events (" + std::to_string(table.channels.size()) +
                         " columns, no rows); give a file with at least one event");
    return table;
}

bool startsWithFcs(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(3, '\0');
    in.read(head.data(), 3);
    head.resize(size_t(std::max<std::streamsize>(in.gcount(), 0)));
    return isFcsHead(head);
}

}  // namespace sepal::io
