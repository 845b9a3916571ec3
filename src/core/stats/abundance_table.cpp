#include "core/stats/abundance_table.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/common/error.h"
#include "core/stats/csv_rows.h"

namespace sepal::stats {

AbundanceTable readAbundanceTable(const std::string& path) {
    const CsvRows csv = readCsvRows(path, "the population counts");
    const auto column = [&](const std::string& name) {
        const auto it = std::find(csv.header.begin(), csv.header.end(), name);
        if (it == csv.header.end())
            throw InputError(path + ": no '" + name +
                             "' column; population counts have the header "
                             "sample,population,cells (populations.csv of sepal-cli apply)");
        return size_t(it - csv.header.begin());
    };
    const size_t sampleColumn = column("sample"), populationColumn = column("population"),
                 cellsColumn = column("cells");
    AbundanceTable t;
    std::map<std::pair<size_t, size_t>, double> cells;
    for (const CsvRow& r : csv.rows) {
        const std::vector<std::string>& row = r.fields;
        const std::string where = path + " line " + std::to_string(r.line);
        const std::string& text = row[cellsColumn];
        char* end = nullptr;
        const double n = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !(n >= 0) || n != std::floor(n))
            throw InputError(where + ": the cells '" + text + "' are not a whole number");
        const size_t s = indexAdding(t.samples, row[sampleColumn]);
        const size_t p = indexAdding(t.populations, row[populationColumn]);
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

AbundanceTable keepSamples(const AbundanceTable& table, const std::vector<std::string>& samples) {
    AbundanceTable kept;
    kept.samples = samples;
    kept.populations = table.populations;
    kept.cells.resize(table.cells.rows(), Eigen::Index(samples.size()));
    for (size_t s = 0; s < samples.size(); ++s) {
        const auto it = std::find(table.samples.begin(), table.samples.end(), samples[s]);
        if (it == table.samples.end())
            throw InputError("the population counts have no sample " + samples[s]);
        kept.cells.col(Eigen::Index(s)) = table.cells.col(Eigen::Index(it - table.samples.begin()));
    }
    return kept;
}

}  // namespace sepal::stats
