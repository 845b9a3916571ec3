#include "core/model/model_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/common/error.h"
#include "core/io/atomic_file.h"
#include "core/io/json_format.h"
#include "core/io/regular_file.h"
#include "core/transform/pipeline.h"

namespace sepal {

namespace {

constexpr const char* kFormatName = "sepal-landmark-model";
// Far above what Sepal trains (65536 landmarks) or reads (FCS files have at most thousands of
// columns), and low enough that their product fits in 64 bits.
constexpr unsigned long long kMostLandmarks = 1ull << 24;
constexpr unsigned long long kMostColumns = 1ull << 20;

nlohmann::json floatArray(const std::vector<float>& values) {
    nlohmann::json a = nlohmann::json::array();
    for (float v : values) a.push_back(static_cast<double>(v));
    return a;
}

// Reads one required field, naming it (and the file) when it is absent or of the wrong kind.
class FieldReader {
  public:
    FieldReader(const nlohmann::json& doc, const std::string& source)
        : m_doc(doc), m_source(source) {}

    const nlohmann::json& require(const char* field, nlohmann::json::value_t kind,
                                  const char* kindName) const {
        if (!m_doc.contains(field)) fail(std::string("field \"") + field + "\" is missing");
        const auto& v = m_doc.at(field);
        const bool ok =
            kind == nlohmann::json::value_t::number_unsigned
                ? v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0)
                : v.type() == kind;
        if (!ok) fail(std::string("field \"") + field + "\" must be " + kindName);
        return v;
    }

    // A non-negative integer up to `most`, read without wrapping: 4294967297 must not become 1.
    size_t count(const char* field, unsigned long long most, const std::string& meaning) const {
        const auto& v =
            require(field, nlohmann::json::value_t::number_unsigned, "a non-negative integer");
        const auto n = v.get<unsigned long long>();
        if (n > most)
            fail(std::string("field \"") + field + "\" (" + meaning + ") is " + std::to_string(n) +
                 ", more than " + std::to_string(most));
        return static_cast<size_t>(n);
    }

    std::vector<float> floats(const char* field, size_t expected) const {
        const auto& a = require(field, nlohmann::json::value_t::array, "an array of numbers");
        if (a.size() != expected)
            fail(std::string("field \"") + field + "\" holds " + std::to_string(a.size()) +
                 " values, expected " + std::to_string(expected));
        std::vector<float> out(expected);
        for (size_t i = 0; i < expected; ++i) {
            if (!a[i].is_number())
                fail(std::string("field \"") + field + "\" element " + std::to_string(i) +
                     " is not a number");
            out[i] = static_cast<float>(a[i].get<double>());
            if (!std::isfinite(out[i]))
                fail(std::string("field \"") + field + "\" element " + std::to_string(i) +
                     " is not finite");
        }
        return out;
    }

    /// An array of `expected` strings (one per `of`: "columns").
    std::vector<std::string> strings(const char* field, size_t expected, const char* of) const {
        const auto& a = require(field, nlohmann::json::value_t::array, "an array of strings");
        if (a.size() != expected)
            fail(std::string("field \"") + field + "\" has " + std::to_string(a.size()) +
                 " entries for " + std::to_string(expected) + " " + of);
        std::vector<std::string> out;
        for (const auto& v : a) {
            if (!v.is_string())
                fail(std::string("field \"") + field + "\" holds " + v.dump() + "; use strings");
            out.push_back(v.get<std::string>());
        }
        return out;
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw InputError("model file " + m_source + ": " + what +
                         "; re-export the model from Sepal or fix the file");
    }

  private:
    const nlohmann::json& m_doc;
    const std::string& m_source;
};

}  // namespace

nlohmann::json modelToJson(const LandmarkModel& model, const std::vector<std::string>& columns,
                           const nlohmann::json& transformJson, const EmbedParams& params,
                           const std::vector<ModelPopulation>& populations,
                           const GateSelection& gates, const PopulationRegions& regions,
                           const std::vector<MarkerClass>& markerClasses,
                           const nlohmann::json& stateTransform,
                           const std::vector<std::string>& columnMarkers,
                           const std::vector<std::string>& stateColumnMarkers) {
    groupsOfLandmarks(populations, model.count());
    model.validate();
    if (columns.size() != model.dim)
        throw InputError("cannot save the model: it has " + std::to_string(model.dim) +
                         " dimensions but " + std::to_string(columns.size()) +
                         " column names were given");
    nlohmann::json doc;
    doc["format"] = kFormatName;
    doc["version"] = kModelFileVersion;
    doc["g"] = model.count();
    doc["d"] = model.dim;
    doc["columns"] = columns;
    doc["transform"] = transformJson;
    doc["high"] = floatArray(model.high);
    doc["low"] = floatArray(model.low);
    doc["locked"] = model.locked;
    nlohmann::json edges = nlohmann::json::array();
    for (auto [a, b] : model.edges) edges.push_back({a, b});
    doc["edges"] = edges;
    doc["embedsom"] = {{"k", params.k}, {"smooth", params.smooth}, {"adjust", params.adjust}};
    if (!populations.empty()) {
        nlohmann::json pops = nlohmann::json::array();
        for (const auto& p : populations) {
            nlohmann::json e = {{"name", p.name}, {"landmarks", p.landmarks}};
            if (!p.phenotype.empty()) e["phenotype"] = p.phenotype;
            pops.push_back(std::move(e));
        }
        doc["populations"] = pops;
    }
    if (markerClasses.size() == columns.size()) {
        nlohmann::json classes = nlohmann::json::array();
        for (MarkerClass c : markerClasses) classes.push_back(markerClassKey(c));
        doc["marker_classes"] = classes;
    }
    if (columnMarkers.size() == columns.size()) doc["column_markers"] = columnMarkers;
    if (stateTransform.is_object() &&
        !stateTransform.value("columns", nlohmann::json::array()).empty()) {
        doc["state_transform"] = stateTransform;
        if (stateColumnMarkers.size() == stateTransform["columns"].size())
            doc["state_column_markers"] = stateColumnMarkers;
    }
    if (!regions.empty()) {
        validateRegions(regions, model.count(), populations.size(), "cannot save the model");
        doc["regions"] = regionsToJson(regions);
    }
    if (!gates.empty()) {
        gates.tree.validate("cannot save the model");
        doc["gates"] = gateSelectionToJson(gates);
    }
    return doc;
}

LoadedModel modelFromJson(const nlohmann::json& doc, const std::string& source) {
    using V = nlohmann::json::value_t;
    if (!doc.is_object())
        throw InputError("model file " + source + ": not a JSON object; expected a Sepal model");
    FieldReader r(doc, source);
    if (r.require("format", V::string, "a string").get<std::string>() != kFormatName)
        r.fail("field \"format\" is not \"" + std::string(kFormatName) + "\"");
    const auto version = r.require("version", V::number_unsigned, "a non-negative integer")
                             .get<unsigned long long>();
    if (version == 0 || version > static_cast<unsigned long long>(kModelFileVersion))
        r.fail("field \"version\" is " + std::to_string(version) + "; this Sepal reads up to " +
               std::to_string(kModelFileVersion) + " (use a newer Sepal)");
    // Bounded so that g * d and g * 2 below cannot wrap around.
    const size_t g = r.count("g", kMostLandmarks, "the number of landmarks");
    const size_t d = r.count("d", kMostColumns, "the number of columns");

    LoadedModel out;
    const auto& cols = r.require("columns", V::array, "an array of strings");
    if (cols.size() != d)
        r.fail("field \"columns\" names " + std::to_string(cols.size()) + " columns but \"d\" is " +
               std::to_string(d));
    for (size_t i = 0; i < cols.size(); ++i) {
        if (!cols[i].is_string())
            r.fail("field \"columns\" element " + std::to_string(i) + " is not a string");
        out.columns.push_back(cols[i].get<std::string>());
    }
    if (!doc.contains("transform")) r.fail("field \"transform\" is missing");
    out.transform = doc.at("transform");

    LandmarkModel& m = out.model;
    m.dim = d;
    m.high = r.floats("high", g * d);
    m.low = r.floats("low", g * 2);
    const auto& locked = r.require("locked", V::array, "an array of integers");
    if (locked.size() != g)
        r.fail("field \"locked\" holds " + std::to_string(locked.size()) + " flags, expected " +
               std::to_string(g));
    m.locked.resize(g);
    for (size_t i = 0; i < g; ++i) {
        if (!locked[i].is_number_integer() || locked[i].get<long long>() < 0 ||
            locked[i].get<long long>() > 255)
            r.fail("field \"locked\" element " + std::to_string(i) + " is not a flag (0..255)");
        m.locked[i] = static_cast<uint8_t>(locked[i].get<int>());
    }
    const auto& edges = r.require("edges", V::array, "an array of [i, j] pairs");
    for (size_t e = 0; e < edges.size(); ++e) {
        const auto& p = edges[e];
        if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() ||
            !p[1].is_number_unsigned() || p[0].get<size_t>() >= g || p[1].get<size_t>() >= g)
            r.fail("field \"edges\" element " + std::to_string(e) +
                   " is not a pair of landmark indices below " + std::to_string(g));
        m.edges.emplace_back(p[0].get<uint32_t>(), p[1].get<uint32_t>());
    }
    const auto& es = r.require("embedsom", V::object, "an object");
    FieldReader er(es, source);
    try {
        out.params.k =
            static_cast<int>(er.count("k", std::numeric_limits<int>::max(), "EmbedSOM neighbours"));
        out.params.smooth = static_cast<float>(es.at("smooth").get<double>());
        out.params.adjust = static_cast<float>(es.at("adjust").get<double>());
    } catch (const nlohmann::json::exception&) {
        r.fail("field \"embedsom\" must hold numbers \"k\", \"smooth\" and \"adjust\"");
    }
    // A value past a float's range reads as infinity: name the field it came from.
    for (const auto& [name, value] :
         {std::pair{"smooth", out.params.smooth}, {"adjust", out.params.adjust}})
        if (!std::isfinite(value))
            r.fail(std::string("field \"embedsom\".\"") + name + "\" is " + es.at(name).dump() +
                   ", beyond what a float holds");
    // Landmarks that all coincide put every cell on one point: no picture to draw.
    const auto allSame = [&](const std::vector<float>& v, size_t dim) {
        for (size_t i = 1; i < g; ++i)
            if (!std::equal(v.begin(), v.begin() + long(dim), v.begin() + long(i * dim)))
                return false;
        return g > 1;
    };
    if (allSame(m.low, 2))
        r.fail("its " + std::to_string(g) +
               " landmarks all sit at one point of the picture (field \"low\"), so " +
               "every cell would land there; train the model again");
    if (allSame(m.high, d))
        r.fail("its " + std::to_string(g) +
               " landmarks all sit at one point of the data (field \"high\"), so " +
               "they tell no cell from another; train the model again");
    // Optional: named sets of landmarks (embed --metaclusters, the app's populations).
    if (doc.contains("populations")) {
        const auto& pops = r.require("populations", V::array, "an array of populations");
        for (size_t p = 0; p < pops.size(); ++p) {
            const auto& e = pops[p];
            if (!e.is_object() || !e.contains("name") || !e["name"].is_string() ||
                !e.contains("landmarks") || !e["landmarks"].is_array())
                r.fail("field \"populations\" element " + std::to_string(p) +
                       " needs a \"name\" string and a \"landmarks\" array");
            ModelPopulation pop;
            pop.name = e["name"].get<std::string>();
            if (e.contains("phenotype") && e["phenotype"].is_string())
                pop.phenotype = e["phenotype"].get<std::string>();
            for (const auto& j : e["landmarks"]) {
                if (!j.is_number_unsigned() || j.get<unsigned long long>() >= g)
                    r.fail("population \"" + pop.name + "\" names a landmark that is not an " +
                           "index below " + std::to_string(g));
                pop.landmarks.push_back(j.get<uint32_t>());
            }
            out.populations.push_back(std::move(pop));
        }
        try {
            groupsOfLandmarks(out.populations, g);
        } catch (const InputError& e) {
            r.fail(e.what());
        }
    }
    // Optional: populations drawn as layout regions (the app's lasso); they label the cells in
    // place of the populations' landmark sets.
    if (doc.contains("regions")) {
        out.regions = regionsFromJson(doc["regions"], "model file " + source);
        validateRegions(out.regions, g, out.populations.size(), "model file " + source);
    }
    // Optional: each column's marker class (type, state or none).
    if (doc.contains("marker_classes")) {
        const auto& classes = r.require("marker_classes", V::array, "an array of classes");
        if (classes.size() != out.columns.size())
            r.fail("field \"marker_classes\" has " + std::to_string(classes.size()) +
                   " classes for " + std::to_string(out.columns.size()) + " columns");
        for (const auto& c : classes) {
            const auto cls = c.is_string() ? markerClassNamed(c.get<std::string>()) : std::nullopt;
            if (!cls)
                r.fail("field \"marker_classes\" holds " + c.dump() + "; use type, state or none");
            out.markerClasses.push_back(*cls);
        }
    }
    // Optional: each column's marker in the data the model was trained on, and each state
    // column's.
    if (doc.contains("column_markers"))
        out.columnMarkers = r.strings("column_markers", out.columns.size(), "columns");
    if (doc.contains("state_column_markers")) {
        const nlohmann::json* state =
            doc.contains("state_transform") ? &doc["state_transform"] : nullptr;
        const size_t states = state && state->is_object()
                                  ? state->value("columns", nlohmann::json::array()).size()
                                  : 0;
        out.stateColumnMarkers = r.strings("state_column_markers", states, "state columns");
    }
    // Optional: the state markers' pipeline (checked as the main one is, when it is applied).
    if (doc.contains("state_transform")) {
        out.stateTransform = r.require("state_transform", V::object, "a transform pipeline");
        try {
            TransformPipeline::fromJson(out.stateTransform).validate();
        } catch (const InputError& e) {
            r.fail(std::string("field \"state_transform\": ") + e.what());
        }
    }
    // Optional: the gates the model's cells passed (the app's biaxial plots, embed --gates).
    if (doc.contains("gates"))
        out.gates = gateSelectionFromJson(doc["gates"], "model file " + source);
    m.touch();
    return out;
}

void saveModel(const std::string& path, const LandmarkModel& model,
               const std::vector<std::string>& columns, const nlohmann::json& transformJson,
               const EmbedParams& params, const std::vector<ModelPopulation>& populations,
               const GateSelection& gates, const PopulationRegions& regions,
               const std::vector<MarkerClass>& markerClasses, const nlohmann::json& stateTransform,
               const std::vector<std::string>& columnMarkers,
               const std::vector<std::string>& stateColumnMarkers) {
    const std::string text =
        modelToJson(model, columns, transformJson, params, populations, gates, regions,
                    markerClasses, stateTransform, columnMarkers, stateColumnMarkers)
            .dump(1) +
        "\n";
    io::AtomicFile file(path);
    file.write(text);
    file.commit();
}

std::vector<MarkerClass> tallyClasses(const LoadedModel& loaded) {
    std::vector<MarkerClass> classes = loaded.markerClasses;
    classes.resize(loaded.columns.size(), MarkerClass::Type);
    if (loaded.stateTransform.is_object())
        classes.resize(
            classes.size() + TransformPipeline::fromJson(loaded.stateTransform).steps.size(),
            MarkerClass::State);
    return classes;
}

LoadedModel loadModel(const std::string& path) {
    io::requireRegularFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot open model file " + path + ": check the path");
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError("model file " + path + " is not valid JSON (byte " +
                         std::to_string(e.byte) + "): re-export the model from Sepal");
    } catch (const nlohmann::json::exception& e) {
        throw InputError("model file " + path + " is not valid JSON: " + e.what() +
                         ": re-export the model from Sepal");
    }
    return modelFromJson(doc, path);
}

bool isModelFile(const std::string& path) {
    return io::jsonFileFormat(path) == kFormatName;
}

}  // namespace sepal
