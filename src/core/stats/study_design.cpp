#include "core/stats/study_design.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/stats/independent_columns.h"

namespace sepal::stats {
namespace {

bool isNumber(const std::string& text, double& value) {
    if (text.empty()) return false;
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
}

// One term of the formula: a factor (its levels, the reference first) or a covariate.
struct Term {
    std::string column;
    size_t index = 0;                 // the metadata column
    bool covariate = false;           // every value a number
    std::vector<std::string> levels;  // factors: the reference first, then the others sorted
};

Term termOf(const SampleMetadata& metadata, const std::vector<std::string>& values,
            const std::string& column, const std::map<std::string, std::string>& references) {
    Term t;
    t.column = column;
    t.covariate = std::all_of(values.begin(), values.end(), [](const std::string& v) {
        double x = 0;
        return isNumber(v, x);
    });
    if (t.covariate) {
        if (references.count(column))
            throw InputError("--reference " + column +
                             ": the column is numeric (a covariate), it "
                             "has no reference level");
        return t;
    }
    // Levels sorted, as R orders a factor's levels; the reference moved first.
    const std::set<std::string> sorted(values.begin(), values.end());
    t.levels.assign(sorted.begin(), sorted.end());
    if (const auto it = references.find(column); it != references.end()) {
        const auto level = std::find(t.levels.begin(), t.levels.end(), it->second);
        if (level == t.levels.end())
            throw InputError("--reference " + column + ":" + it->second + ": no sample of " +
                             metadata.source + " has it (levels: " + commaJoined(t.levels) + ")");
        std::rotate(t.levels.begin(), level, level + 1);
    }
    return t;
}

}  // namespace

StudyDesign buildStudyDesign(const SampleMetadata& metadata,
                             const std::vector<std::string>& samples, const std::string& formula,
                             const std::string& contrast,
                             const std::map<std::string, std::string>& references) {
    StudyDesign d;
    d.samples = samples;
    if (samples.empty()) throw InputError("no samples to compare");
    std::vector<int> rows;
    for (const auto& s : samples) {
        const int r = metadata.rowOf(s);
        if (r < 0)
            throw InputError(metadata.source + ": no row describes the sample '" + s +
                             "' (its first column names each sample by path, file name or name "
                             "without extension)");
        rows.push_back(r);
    }
    const auto valuesOf = [&](size_t column) {
        std::vector<std::string> values;
        for (int r : rows) values.push_back(metadata.values[size_t(r)][column]);
        return values;
    };
    const auto columnIndex = [&](const std::string& name, const std::string& context) {
        const auto it = std::find(metadata.columns.begin(), metadata.columns.end(), name);
        if (it == metadata.columns.end())
            throw InputError(context + ": '" + name + "' is no column of " + metadata.source +
                             " (it has " + commaJoined(metadata.columns) + ")");
        return size_t(it - metadata.columns.begin());
    };
    for (const auto& [column, level] : references) columnIndex(column, "--reference");

    // The terms of the formula, each column once.
    std::vector<Term> terms;
    size_t start = 0;
    while (start <= formula.size()) {
        const size_t plus = std::min(formula.find('+', start), formula.size());
        const std::string name = trimmed(formula.substr(start, plus - start));
        start = plus + 1;
        if (name.empty())
            throw InputError("--design '" + formula +
                             "': an empty term; write metadata columns joined by +, for example "
                             "'condition + patient'");
        const size_t index = columnIndex(name, "--design");
        if (std::any_of(terms.begin(), terms.end(),
                        [&](const Term& t) { return t.index == index; }))
            throw InputError("--design '" + formula + "': '" + name + "' is named twice");
        Term t = termOf(metadata, valuesOf(index), name, references);
        t.index = index;
        terms.push_back(std::move(t));
    }

    // The model matrix: the intercept, then each term's columns.
    d.coefficients.push_back("(Intercept)");
    for (const Term& t : terms) {
        if (t.covariate) d.coefficients.push_back(t.column);
        for (size_t l = 1; l < t.levels.size(); ++l)
            d.coefficients.push_back(t.column + t.levels[l]);
    }
    const size_t n = samples.size(), p = d.coefficients.size();
    d.matrix = Eigen::MatrixXd::Zero(Eigen::Index(n), Eigen::Index(p));
    for (size_t s = 0; s < n; ++s) {
        d.matrix(Eigen::Index(s), 0) = 1.0;
        size_t c = 1;
        for (const Term& t : terms) {
            const std::string& v = metadata.values[size_t(rows[s])][t.index];
            if (t.covariate) {
                double x = 0;
                isNumber(v, x);
                d.matrix(Eigen::Index(s), Eigen::Index(c++)) = x;
                continue;
            }
            for (size_t l = 1; l < t.levels.size(); ++l, ++c)
                d.matrix(Eigen::Index(s), Eigen::Index(c)) = v == t.levels[l] ? 1.0 : 0.0;
        }
    }
    if (p >= n)
        throw InputError("the design '" + formula + "' has " + std::to_string(p) +
                         " coefficients for " + std::to_string(n) +
                         " samples: the test needs more samples than coefficients");
    if (numericalRank(d.matrix) < Eigen::Index(p)) {
        const std::vector<Eigen::Index> kept = independentColumns(d.matrix);
        std::vector<std::string> dropped;
        for (size_t c = 0; c < p; ++c)
            if (std::find(kept.begin(), kept.end(), Eigen::Index(c)) == kept.end())
                dropped.push_back(d.coefficients[c]);
        throw InputError("the design '" + formula +
                         "' is not of full rank: " + commaJoined(dropped) +
                         " is a combination of the columns before it (a factor nested in "
                         "another, or a level no sample has apart from another term)");
    }

    // The contrast: "column:a-b", "column:a" (against the reference) or a covariate's name.
    const size_t colon = contrast.find(':');
    const std::string column = trimmed(contrast.substr(0, colon));
    const auto term =
        std::find_if(terms.begin(), terms.end(), [&](const Term& t) { return t.column == column; });
    if (term == terms.end())
        throw InputError("--contrast '" + contrast + "': '" + column +
                         "' is no term of the design '" + formula + "'");
    d.contrast = Eigen::VectorXd::Zero(Eigen::Index(p));
    const auto coefficientOf = [&](const std::string& name) {
        return Eigen::Index(std::find(d.coefficients.begin(), d.coefficients.end(), name) -
                            d.coefficients.begin());
    };
    if (term->covariate) {
        if (colon != std::string::npos)
            throw InputError("--contrast '" + contrast + "': '" + column +
                             "' is a numeric covariate; name it alone to test its slope");
        d.contrast(coefficientOf(column)) = 1.0;
        d.contrastText = column + " (slope)";
        return d;
    }
    const std::string levels = colon == std::string::npos ? "" : contrast.substr(colon + 1);
    const size_t minus = levels.find('-');
    const std::string a = trimmed(levels.substr(0, minus));
    const std::string b =
        minus == std::string::npos ? term->levels.front() : trimmed(levels.substr(minus + 1));
    if (term->levels.size() < 2)
        throw InputError("--contrast '" + contrast + "': every sample has " + column + " " +
                         commaJoined(term->levels) +
                         ", so there is nothing to compare; the metadata must give " + column +
                         " two levels or more");
    for (const std::string& level : {a, b})
        if (std::find(term->levels.begin(), term->levels.end(), level) == term->levels.end())
            throw InputError("--contrast '" + contrast + "': '" + level + "' is no level of " +
                             column + " (it has " + commaJoined(term->levels) +
                             "); write COLUMN:LEVEL-LEVEL, for example " + column + ":" +
                             term->levels.back() + "-" + term->levels.front());
    if (a == b) {
        // "column:level" compares the level with the reference, the first level in sorted order
        // unless --reference names another: say both ways out.
        std::string other;
        for (const auto& level : term->levels)
            if (level != a && other.empty()) other = level;
        throw InputError("--contrast '" + contrast + "' compares " + a + " with itself" +
                         (minus == std::string::npos && !other.empty()
                              ? " (" + a + " is the reference level of " + column + "); write " +
                                    column + ":" + a + "-" + other +
                                    ", or choose another reference with --reference " + column +
                                    ":" + other
                              : ""));
    }
    if (a != term->levels.front()) d.contrast(coefficientOf(column + a)) += 1.0;
    if (b != term->levels.front()) d.contrast(coefficientOf(column + b)) -= 1.0;
    d.contrastText = column + ": " + a + " - " + b;
    d.groupColumn = column;
    d.groupLevels = {b, a};
    for (const auto& level : term->levels)
        if (level != a && level != b) d.groupLevels.push_back(level);
    for (size_t s = 0; s < n; ++s)
        d.groupOf.push_back(metadata.values[size_t(rows[s])][term->index]);
    for (const std::string& level : {a, b}) {
        const auto count = std::count(d.groupOf.begin(), d.groupOf.end(), level);
        if (count < 2)
            throw InputError(column + " " + level + " has " + std::to_string(count) +
                             " sample; a group needs at least two to be compared");
    }
    return d;
}

}  // namespace sepal::stats
