#include "core/stats/sample_median_table.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "core/common/error.h"
#include "core/stats/csv_rows.h"

namespace sepal::stats {
namespace {

/// A field as a number: NA (or empty) is missing, anything else must read whole.
double numberField(const std::string& text, const std::string& where) {
    if (text.empty() || text == "NA" || text == "NaN" || text == "nan")
        return std::numeric_limits<double>::quiet_NaN();
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size())
        throw InputError(where + ": '" + text + "' is not a number");
    return v;
}

}  // namespace

SampleMedianTable readSampleMedians(const std::string& path) {
    const CsvRows csv = readCsvRows(path, "the sample medians");
    const std::vector<std::string>& header = csv.header;
    if (header.size() < 4 || header[0] != "sample" || header[1] != "population" ||
        header[2] != "cells")
        throw InputError(path +
                         ": sample medians have the header sample,population,cells,MARKER... "
                         "(sample_medians.csv of sepal-cli apply or the app's Export > Counts; "
                         "medians.csv pools the samples and cannot compare them)");
    SampleMedianTable t;
    t.markers.assign(header.begin() + 3, header.end());
    struct Row {
        double cells;
        std::vector<double> medians;
    };
    std::map<std::pair<size_t, size_t>, Row> rows;
    for (const CsvRow& r : csv.rows) {
        const std::vector<std::string>& fields = r.fields;
        const std::string where = path + " line " + std::to_string(r.line);
        Row row;
        row.cells = numberField(fields[2], where);
        if (!(row.cells >= 0) || row.cells != std::floor(row.cells))
            throw InputError(where + ": the cells '" + fields[2] + "' are not a whole number");
        for (size_t m = 3; m < fields.size(); ++m)
            row.medians.push_back(numberField(fields[m], where + " column " + header[m]));
        const size_t s = indexAdding(t.samples, fields[0]);
        const size_t p = indexAdding(t.populations, fields[1]);
        if (!rows.emplace(std::make_pair(p, s), std::move(row)).second)
            throw InputError(where + ": sample " + fields[0] + " and population " + fields[1] +
                             " are listed twice");
    }
    if (t.samples.empty()) throw InputError(path + ": no sample medians are listed");
    const auto P = Eigen::Index(t.populations.size()), S = Eigen::Index(t.samples.size());
    t.cells = Eigen::MatrixXd::Zero(P, S);
    t.medians.assign(t.markers.size(),
                     Eigen::MatrixXd::Constant(P, S, std::numeric_limits<double>::quiet_NaN()));
    for (const auto& [at, row] : rows) {
        const auto p = Eigen::Index(at.first), s = Eigen::Index(at.second);
        t.cells(p, s) = row.cells;
        for (size_t m = 0; m < row.medians.size(); ++m) t.medians[m](p, s) = row.medians[m];
    }
    return t;
}

}  // namespace sepal::stats
