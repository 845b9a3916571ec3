#include "core/stats/abundance_table.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include "core/common/error.h"
#include "core/io/delimited_fields.h"
#include "core/io/regular_file.h"

namespace sepal::stats {
namespace {

size_t indexOf(std::vector<std::string>& names, const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return size_t(it - names.begin());
    names.push_back(name);
    return names.size() - 1;
}

}  // namespace

AbundanceTable readAbundanceTable(const std::string& path) {
    io::requireRegularFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open the population counts; check the path");
    std::string line;
    if (!std::getline(in, line)) throw InputError(path + ": the population counts are empty");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> header = io::delimitedFields(line, ',');
    const auto column = [&](const std::string& name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
            throw InputError(path + ": no '" + name +
                             "' column; population counts have the header "
                             "sample,population,cells (populations.csv of sepal-cli apply)");
        return size_t(it - header.begin());
    };
    const size_t sampleColumn = column("sample"), populationColumn = column("population"),
                 cellsColumn = column("cells");
    AbundanceTable t;
    std::map<std::pair<size_t, size_t>, double> cells;
    for (size_t number = 2; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        const std::vector<std::string> row = io::delimitedFields(line, ',');
        const std::string where = path + " line " + std::to_string(number);
        if (row.size() != header.size())
            throw InputError(where + " has " + std::to_string(row.size()) + " fields, the header " +
                             std::to_string(header.size()));
        const std::string& text = row[cellsColumn];
        char* end = nullptr;
        const double n = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !(n >= 0) || n != std::floor(n))
            throw InputError(where + ": the cells '" + text + "' are not a whole number");
        const size_t s = indexOf(t.samples, row[sampleColumn]);
        const size_t p = indexOf(t.populations, row[populationColumn]);
        if (!cells.emplace(std::make_pair(p, s), n).second)
            throw InputError(where + ": sample " + row[sampleColumn] + " and population " +
                             row[populationColumn] + " are listed twice");
    }
    if (t.samples.empty()) throw InputError(path + ": no counts are listed");
    t.cells =
        Eigen::MatrixXd::Zero(Eigen::Index(t.populations.size()), Eigen::Index(t.samples.size()));
    for (const auto& [at, n] : cells) t.cells(Eigen::Index(at.first), Eigen::Index(at.second)) = n;
    return t;
}

}  // namespace sepal::stats
