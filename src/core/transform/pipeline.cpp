#include "core/transform/pipeline.h"

#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/spillover_file.h"
#include "core/transform/arcsinh.h"
#include "core/transform/channel_label.h"
#include "core/transform/compensation.h"

namespace sepal {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& field, const std::string& problem) {
    throw InputError("transform pipeline: " + field + " " + problem);
}

const char* kindName(ColumnTransform::Kind kind) {
    switch (kind) {
        case ColumnTransform::Kind::Linear:
            return "linear";
        case ColumnTransform::Kind::Arcsinh:
            return "arcsinh";
        case ColumnTransform::Kind::Logicle:
            return "logicle";
        case ColumnTransform::Kind::None:
            break;
    }
    return "none";
}

double number(const json& object, const char* key, const std::string& path, double fallback) {
    const auto it = object.find(key);
    if (it == object.end()) return fallback;
    if (!it->is_number()) fail(path + "." + key, "must be a number, found " + it->dump());
    return it->get<double>();
}

void requireObject(const json& value, const std::string& path) {
    if (!value.is_object()) fail(path, "must be a JSON object, found " + value.dump());
}

std::string stepPath(size_t i, const std::string& name) {
    return "columns[" + std::to_string(i) + "] (\"" + name + "\")";
}

ColumnTransform transformFromJson(const json& j, const std::string& path) {
    requireObject(j, path);
    ColumnTransform t;
    const auto kind = j.find("kind");
    if (kind == j.end() || !kind->is_string())
        fail(path + ".kind", "must be one of \"none\", \"linear\", \"arcsinh\", \"logicle\"");
    const std::string k = kind->get<std::string>();
    if (k == "none") {
        t.kind = ColumnTransform::Kind::None;
    } else if (k == "linear") {
        t.kind = ColumnTransform::Kind::Linear;
        t.scale = number(j, "scale", path, 1.0);
        t.offset = number(j, "offset", path, 0.0);
    } else if (k == "arcsinh") {
        t.kind = ColumnTransform::Kind::Arcsinh;
        t.cofactor = number(j, "cofactor", path, 5.0);
    } else if (k == "logicle") {
        t.kind = ColumnTransform::Kind::Logicle;
        const LogicleParams defaults;
        t.logicle.T = number(j, "T", path, defaults.T);
        t.logicle.W = number(j, "W", path, defaults.W);
        t.logicle.M = number(j, "M", path, defaults.M);
        t.logicle.A = number(j, "A", path, defaults.A);
    } else {
        fail(path + ".kind", "\"" + k +
                                 "\" is unknown (use \"none\", \"linear\", \"arcsinh\" or "
                                 "\"logicle\")");
    }
    return t;
}

json transformToJson(const ColumnTransform& t) {
    json j{{"kind", kindName(t.kind)}};
    switch (t.kind) {
        case ColumnTransform::Kind::Linear:
            j["scale"] = t.scale;
            j["offset"] = t.offset;
            break;
        case ColumnTransform::Kind::Arcsinh:
            j["cofactor"] = t.cofactor;
            break;
        case ColumnTransform::Kind::Logicle:
            j["T"] = t.logicle.T;
            j["W"] = t.logicle.W;
            j["M"] = t.logicle.M;
            j["A"] = t.logicle.A;
            break;
        case ColumnTransform::Kind::None:
            break;
    }
    return j;
}

/// Mean and sample standard deviation of one column of `m`, NaNs left out.
std::pair<double, double> columnStatistics(const Matrix& m, size_t column) {
    double sum = 0;
    size_t count = 0;
    for (size_t i = 0; i < m.rows; ++i) {
        const float v = m.at(i, column);
        if (std::isfinite(v)) {
            sum += v;
            ++count;
        }
    }
    const double mean = count ? sum / static_cast<double>(count) : 0.0;
    double squares = 0;
    for (size_t i = 0; i < m.rows; ++i) {
        const float v = m.at(i, column);
        if (std::isfinite(v)) squares += (v - mean) * (v - mean);
    }
    const double sd = count > 1 ? std::sqrt(squares / static_cast<double>(count - 1)) : 0.0;
    return {mean, sd};
}

}  // namespace

json TransformPipeline::toJson() const {
    json j;
    j["version"] = 1;
    json comp;
    switch (compensation.source) {
        case CompensationStep::Source::None:
            comp["source"] = "none";
            break;
        case CompensationStep::Source::File:
            comp["source"] = "file";
            break;
        case CompensationStep::Source::Stored: {
            comp["source"] = "stored";
            comp["channels"] = compensation.spillover.channels;
            json rows = json::array();
            const Matrix& m = compensation.spillover.matrix;
            for (size_t r = 0; r < m.rows; ++r)
                rows.push_back(std::vector<double>(m.row(r), m.row(r) + m.cols));
            comp["matrix"] = rows;
            break;
        }
    }
    j["compensation"] = comp;
    json columnsJson = json::array();
    for (const auto& s : steps) {
        json c{{"name", s.name}, {"transform", transformToJson(s.transform)}, {"weight", s.weight}};
        if (!s.zscore)
            c["zscore"] = false;
        else if (s.mean && s.sd)
            c["zscore"] = json{{"mean", *s.mean}, {"sd", *s.sd}};
        else
            c["zscore"] = true;
        columnsJson.push_back(c);
    }
    j["columns"] = columnsJson;
    return j;
}

TransformPipeline TransformPipeline::fromJson(const json& j) {
    requireObject(j, "the document");
    if (j.contains("version") && (!j["version"].is_number_integer() || j["version"] != 1))
        fail("version", "must be 1, found " + j["version"].dump());
    TransformPipeline p;
    if (j.contains("compensation")) {
        const json& c = j["compensation"];
        requireObject(c, "compensation");
        const std::string source = c.value("source", std::string("none"));
        if (source == "none") {
            p.compensation.source = CompensationStep::Source::None;
        } else if (source == "file") {
            p.compensation.source = CompensationStep::Source::File;
        } else if (source == "stored") {
            p.compensation.source = CompensationStep::Source::Stored;
            if (!c.contains("channels") || !c["channels"].is_array())
                fail("compensation.channels", "must be an array of channel names");
            for (const auto& name : c["channels"]) {
                if (!name.is_string())
                    fail("compensation.channels", "must hold strings, found " + name.dump());
                p.compensation.spillover.channels.push_back(name.get<std::string>());
            }
            const size_t n = p.compensation.spillover.channels.size();
            if (!c.contains("matrix") || !c["matrix"].is_array() || c["matrix"].size() != n)
                fail("compensation.matrix",
                     "must be an array of " + std::to_string(n) + " rows (one per channel)");
            Matrix m(n, n);
            for (size_t r = 0; r < n; ++r) {
                const json& row = c["matrix"][r];
                if (!row.is_array() || row.size() != n)
                    fail("compensation.matrix[" + std::to_string(r) + "]",
                         "must be an array of " + std::to_string(n) + " numbers");
                for (size_t k = 0; k < n; ++k) {
                    if (!row[k].is_number())
                        fail("compensation.matrix[" + std::to_string(r) + "][" + std::to_string(k) +
                                 "]",
                             "must be a number, found " + row[k].dump());
                    m.at(r, k) = row[k].get<float>();
                }
            }
            p.compensation.spillover.matrix = std::move(m);
        } else {
            fail("compensation.source",
                 "\"" + source + "\" is unknown (use \"none\", \"file\" or \"stored\")");
        }
    }
    if (!j.contains("columns") || !j["columns"].is_array())
        fail("columns", "must be an array of columns (names or objects with \"name\")");
    const json& columnsJson = j["columns"];
    for (size_t i = 0; i < columnsJson.size(); ++i) {
        const json& c = columnsJson[i];
        ColumnStep s;
        const std::string path = "columns[" + std::to_string(i) + "]";
        if (c.is_string()) {
            s.name = c.get<std::string>();
            p.steps.push_back(std::move(s));
            continue;
        }
        requireObject(c, path);
        if (!c.contains("name") || !c["name"].is_string()) fail(path + ".name", "must be a string");
        s.name = c["name"].get<std::string>();
        if (c.contains("transform"))
            s.transform = transformFromJson(c["transform"], path + ".transform");
        s.weight = number(c, "weight", path, 1.0);
        if (c.contains("zscore")) {
            const json& z = c["zscore"];
            if (z.is_boolean()) {
                s.zscore = z.get<bool>();
            } else if (z.is_object()) {
                s.zscore = true;
                if (!z.contains("mean") || !z.contains("sd"))
                    fail(path + ".zscore", "must hold both \"mean\" and \"sd\"");
                s.mean = number(z, "mean", path + ".zscore", 0.0);
                s.sd = number(z, "sd", path + ".zscore", 1.0);
            } else {
                fail(path + ".zscore", "must be true, false or {\"mean\": ..., \"sd\": ...}");
            }
        }
        p.steps.push_back(std::move(s));
    }
    p.validate();
    return p;
}

void TransformPipeline::validate() const {
    std::set<std::string> seen;
    for (size_t i = 0; i < steps.size(); ++i) {
        const ColumnStep& s = steps[i];
        const std::string path = stepPath(i, s.name);
        if (s.name.empty()) fail("columns[" + std::to_string(i) + "].name", "must not be empty");
        if (!seen.insert(s.name).second) fail(path, "selects the column a second time");
        const ColumnTransform& t = s.transform;
        if (t.kind == ColumnTransform::Kind::Arcsinh &&
            !(std::isfinite(t.cofactor) && t.cofactor > 0))
            fail(path + ".transform.cofactor",
                 "must be a positive number, found " + std::to_string(t.cofactor));
        if (t.kind == ColumnTransform::Kind::Linear &&
            !(std::isfinite(t.scale) && std::isfinite(t.offset)))
            fail(path + ".transform", "scale and offset must be finite numbers");
        if (t.kind == ColumnTransform::Kind::Logicle) {
            try {
                Logicle check(t.logicle);
            } catch (const InputError& e) {
                fail(path + ".transform:", e.what());
            }
        }
        if (!(std::isfinite(s.weight) && s.weight >= 0))
            fail(path + ".weight",
                 "must be a finite number >= 0, found " + std::to_string(s.weight));
        if (s.mean && !std::isfinite(*s.mean)) fail(path + ".zscore.mean", "must be finite");
        if (s.sd && !(std::isfinite(*s.sd) && *s.sd > 0))
            fail(path + ".zscore.sd", "must be a positive number, found " + std::to_string(*s.sd));
    }
    if (compensation.source == CompensationStep::Source::Stored) {
        const auto& sp = compensation.spillover;
        if (sp.channels.empty() || sp.matrix.rows != sp.channels.size() ||
            sp.matrix.cols != sp.channels.size())
            fail("compensation.matrix", "must be square with one row per channel");
    }
}

TransformPipeline::ResolvedColumns TransformPipeline::resolveColumns(const io::Table& table) const {
    ResolvedColumns out;
    out.source.assign(steps.size(), 0);
    out.compensatedAlready.assign(steps.size(), 0);
    // Exact channel names (the usual case: the pipeline was made for such a table) through a
    // map; other words (markers, labels, other case) through the resolver.
    std::unordered_map<std::string, std::vector<size_t>> byName;
    for (size_t c = 0; c < table.channels.size(); ++c) byName[table.channels[c].name].push_back(c);
    // A pipeline that compensates takes a table's compensated column ("Comp-PE-A", as FlowJo
    // exports) for a channel it lacks: those values need no compensation.
    const bool compensates = compensation.source != CompensationStep::Source::None;
    for (size_t s = 0; s < steps.size(); ++s) {
        const auto exact = byName.find(steps[s].name);
        std::vector<size_t> found =
            exact != byName.end() ? exact->second : channelsNamed(table, steps[s].name);
        if (const int c =
                compensates && found.empty() ? compensatedColumn(table, steps[s].name) : -1;
            c >= 0) {
            found.push_back(size_t(c));
            out.compensatedAlready[s] = 1;
        }
        if (found.size() > 1)
            throwAmbiguousChannel(table, steps[s].name, found, "transform pipeline");
        if (found.empty())
            out.missing.push_back(steps[s].name);
        else
            out.source[s] = found.front();
    }
    return out;
}

std::vector<std::string> TransformPipeline::missingColumns(const io::Table& table) const {
    return resolveColumns(table).missing;
}

std::vector<std::string> TransformPipeline::columns() const {
    std::vector<std::string> names;
    for (const auto& s : steps) names.push_back(s.name);
    return names;
}

void TransformPipeline::refuseHalfCompensated(const io::Table& table,
                                              const std::vector<size_t>& source,
                                              const std::vector<char>& compensatedAlready) const {
    // The channels the pipeline compensates: its matrix's (the file's own, or the one given).
    const io::Spillover* matrix = compensation.source == CompensationStep::Source::Stored
                                      ? &compensation.spillover
                                  : table.spillover ? &*table.spillover
                                                    : nullptr;
    if (!matrix) return;
    std::string already, raw;
    for (size_t s = 0; s < steps.size(); ++s) {
        const std::string& name = table.channels[source[s]].name;
        if (compensatedAlready[s])
            already = already.empty() ? name : already;
        else if (std::find(matrix->channels.begin(), matrix->channels.end(), name) !=
                 matrix->channels.end())
            raw += (raw.empty() ? "" : ", ") + name;
    }
    if (!raw.empty())
        throw InputError("transform pipeline: " +
                         (table.source.empty() ? std::string("the data") : table.source) +
                         " holds compensated values (" + already +
                         ") beside uncompensated channels the matrix covers (" + raw +
                         "): export every channel compensated, or none");
}

Matrix TransformPipeline::apply(const io::Table& table) const {
    validate();
    const size_t n = table.events();
    const size_t m = steps.size();
    const ResolvedColumns resolved = resolveColumns(table);
    const std::vector<size_t>& source = resolved.source;
    const std::vector<char>& compensatedAlready = resolved.compensatedAlready;
    if (!resolved.missing.empty()) {
        throw InputError("transform pipeline: " +
                         (table.source.empty() ? std::string("the data") : table.source) +
                         " has no column " + commaJoined(resolved.missing) +
                         " (its numeric columns: " + channelChoices(table) + ")");
    }

    std::optional<ResolvedCompensation> comp;
    if (std::find(compensatedAlready.begin(), compensatedAlready.end(), 1) !=
        compensatedAlready.end()) {
        refuseHalfCompensated(table, source, compensatedAlready);
    } else if (compensation.source == CompensationStep::Source::File) {
        if (!table.spillover) {
            // A delimited table's matrix is read from beside it (CSV has no keywords).
            const std::string extension = lowerExtension(table.source);
            const bool text = extension == ".csv" || extension == ".tsv" || extension == ".txt";
            throw InputError(
                "transform pipeline: compensation uses the file's spillover matrix, but " +
                (table.source.empty() ? std::string("the data") : table.source) +
                " has none: give the matrix (--spillover FILE, or Load in the Data window" +
                (text ? "; a table's own is read from " + io::spilloverBeside(table.source)
                      : std::string()) +
                ") or turn compensation off");
        }
        comp = resolveCompensation(*table.spillover, table);
    } else if (compensation.source == CompensationStep::Source::Stored) {
        comp = resolveCompensation(
            compensation.spillover, table,
            "the spillover matrix given for " +
                (table.source.empty() ? std::string("the data") : table.source) +
                " (--spillover or the Data window)");
    }
    std::vector<int> compPosition(m, -1);
    if (comp)
        for (size_t s = 0; s < m; ++s)
            for (size_t j = 0; j < comp->columns.size(); ++j)
                if (comp->columns[j] == source[s]) compPosition[s] = static_cast<int>(j);

    std::vector<std::optional<Logicle>> logicles(m);
    for (size_t s = 0; s < m; ++s)
        if (steps[s].transform.kind == ColumnTransform::Kind::Logicle)
            logicles[s].emplace(steps[s].transform.logicle);

    Matrix out(n, m);
    const size_t k = comp ? comp->columns.size() : 0;
    // Blocks of rows, a column at a time: the values of one step are gathered (or compensated),
    // transformed together (arcsinh runs over many values at once) and scattered to `out`.
    constexpr size_t kBlock = 256;
    const long long blocks = static_cast<long long>((n + kBlock - 1) / kBlock);
#pragma omp parallel if (n > 4096)
    {
        std::vector<double> observed(kBlock * k), x(kBlock);
        // In turns: apply's reading and writing threads share the cores.
#pragma omp for schedule(dynamic, 4)
        for (long long b = 0; b < blocks; ++b) {
            const size_t first = static_cast<size_t>(b) * kBlock;
            const size_t count = std::min(kBlock, n - first);
            for (size_t i = 0; i < count; ++i)
                for (size_t j = 0; j < k; ++j)
                    observed[i * k + j] = table.values.row(first + i)[comp->columns[j]];
            for (size_t s = 0; s < m; ++s) {
                if (compPosition[s] >= 0) {
                    const size_t col = static_cast<size_t>(compPosition[s]);
                    for (size_t i = 0; i < count; ++i) {
                        double v = 0;
                        for (size_t j = 0; j < k; ++j)
                            v += observed[i * k + j] * comp->inverse[j * k + col];
                        x[i] = v;
                    }
                } else {
                    for (size_t i = 0; i < count; ++i)
                        x[i] = table.values.row(first + i)[source[s]];
                }
                const ColumnTransform& t = steps[s].transform;
                switch (t.kind) {
                    case ColumnTransform::Kind::None:
                        break;
                    case ColumnTransform::Kind::Linear:
                        for (size_t i = 0; i < count; ++i) x[i] = x[i] * t.scale + t.offset;
                        break;
                    case ColumnTransform::Kind::Arcsinh:
                        arcsinhInPlace(x.data(), count, t.cofactor);
                        break;
                    case ColumnTransform::Kind::Logicle:
                        for (size_t i = 0; i < count; ++i) x[i] = logicles[s]->scale(x[i]);
                        break;
                }
                for (size_t i = 0; i < count; ++i) out.row(first + i)[s] = static_cast<float>(x[i]);
            }
        }
    }

    for (size_t s = 0; s < m; ++s) {
        const ColumnStep& step = steps[s];
        double shift = 0, factor = step.weight;
        if (step.zscore) {
            double mean, sd;
            if (step.mean && step.sd) {
                mean = *step.mean;
                sd = *step.sd;
            } else {
                std::tie(mean, sd) = columnStatistics(out, s);
            }
            shift = mean;
            factor = sd > 0 ? step.weight / sd : step.weight;
        }
        if (shift == 0 && factor == 1) continue;
        for (size_t i = 0; i < n; ++i) {
            float& v = out.at(i, s);
            v = static_cast<float>((v - shift) * factor);
        }
    }
    return out;
}

void TransformPipeline::fit(const io::Table& table) {
    TransformPipeline plain = *this;
    for (auto& s : plain.steps) {
        s.zscore = false;
        s.weight = 1.0;
    }
    const Matrix transformed = plain.apply(table);
    for (size_t s = 0; s < steps.size(); ++s) {
        if (!steps[s].zscore) continue;
        const auto [mean, sd] = columnStatistics(transformed, s);
        steps[s].mean = mean;
        steps[s].sd = sd > 0 ? sd : 1.0;
    }
}

}  // namespace sepal
