#include "core/stats/csv_rows.h"

#include <algorithm>
#include <fstream>

#include "core/common/error.h"
#include "core/io/delimited_fields.h"
#include "core/io/regular_file.h"

namespace sepal::stats {

CsvRows readCsvRows(const std::string& path, const std::string& what) {
    io::requireRegularFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open " + what + "; check the path");
    std::string line;
    if (!std::getline(in, line)) throw InputError(path + ": " + what + " are empty");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    CsvRows t;
    t.header = io::delimitedFields(line, ',');
    for (size_t number = 2; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        CsvRow row{number, io::delimitedFields(line, ',')};
        if (row.fields.size() != t.header.size())
            throw InputError(path + " line " + std::to_string(number) + " has " +
                             std::to_string(row.fields.size()) + " fields, the header " +
                             std::to_string(t.header.size()));
        t.rows.push_back(std::move(row));
    }
    return t;
}

size_t indexAdding(std::vector<std::string>& names, const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return size_t(it - names.begin());
    names.push_back(name);
    return names.size() - 1;
}

}  // namespace sepal::stats
