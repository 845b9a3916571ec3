#include "core/gate/gate.h"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "core/common/error.h"
#include "core/io/atomic_file.h"
#include "core/io/regular_file.h"
#include "core/transform/channel_label.h"
#include "core/transform/channel_roles.h"

namespace sepal {

bool Gate::operator==(const Gate& other) const {
    return name == other.name && polygon == other.polygon && axes.toJson() == other.axes.toJson();
}

TransformPipeline gateAxes(const io::Table& table, const std::string& x, const std::string& y,
                           const CompensationStep& compensation) {
    TransformPipeline axes;
    axes.compensation = compensation;
    const double cofactor = guessCytometry(table) == Cytometry::Mass ? 5.0 : 150.0;
    for (const std::string& word : {x, y}) {
        const size_t c = resolveChannel(table, word, "gate axis");
        ColumnStep step;
        step.name = table.channels[c].name;
        if (linearByDefault(channelRole(table, c))) {
            step.transform.kind = ColumnTransform::Kind::Linear;
        } else {
            step.transform.kind = ColumnTransform::Kind::Arcsinh;
            step.transform.cofactor = cofactor;
        }
        axes.steps.push_back(step);
    }
    return axes;
}

std::vector<float> rectanglePolygon(float x0, float y0, float x1, float y1) {
    return {x0, y0, x1, y0, x1, y1, x0, y1};
}

bool insidePolygon(const std::vector<float>& polygon, float x, float y) {
    if (!std::isfinite(x) || !std::isfinite(y)) return false;
    const size_t n = polygon.size() / 2;
    bool inside = false;
    for (size_t i = 0, j = n - 1; i < n; j = i++) {
        const float xi = polygon[2 * i], yi = polygon[2 * i + 1];
        const float xj = polygon[2 * j], yj = polygon[2 * j + 1];
        if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) inside = !inside;
    }
    return inside;
}

void validateGate(const Gate& gate, const std::string& source) {
    const std::string where = source + ": gate \"" + gate.name + "\"";
    if (gate.name.empty()) throw InputError(source + ": a gate has no name");
    if (gate.axes.steps.size() != 2)
        throw InputError(where + " has " + std::to_string(gate.axes.steps.size()) +
                         " axes; a gate has two (x and y)");
    gate.axes.validate();
    if (gate.polygon.size() < 6 || gate.polygon.size() % 2 != 0)
        throw InputError(where + ": its polygon needs at least 3 x y vertices, it has " +
                         std::to_string(gate.polygon.size()) + " numbers");
    for (float v : gate.polygon)
        if (!std::isfinite(v)) throw InputError(where + ": a polygon vertex is not finite");
}

std::vector<uint8_t> insideGates(const io::Table& table, const std::vector<Gate>& gates) {
    std::vector<uint8_t> inside(table.events(), 1);
    for (const Gate& gate : gates) {
        Matrix xy;
        try {
            xy = gate.axes.apply(table);
        } catch (const InputError& e) {
            throw InputError("gate \"" + gate.name + "\": " + e.what());
        }
        for (size_t i = 0; i < inside.size(); ++i)
            if (inside[i] && !insidePolygon(gate.polygon, xy.at(i, 0), xy.at(i, 1))) inside[i] = 0;
    }
    return inside;
}

nlohmann::json gatesToJson(const std::vector<Gate>& gates) {
    nlohmann::json a = nlohmann::json::array();
    for (const Gate& g : gates) {
        nlohmann::json polygon = nlohmann::json::array();
        for (float v : g.polygon) polygon.push_back(double(v));
        a.push_back({{"name", g.name}, {"axes", g.axes.toJson()}, {"polygon", polygon}});
    }
    return a;
}

std::vector<Gate> gatesFromJson(const nlohmann::json& json, const std::string& source) {
    if (!json.is_array()) throw InputError(source + ": \"gates\" must be an array");
    std::vector<Gate> gates;
    for (size_t i = 0; i < json.size(); ++i) {
        const auto& j = json[i];
        const std::string where = source + ": gates[" + std::to_string(i) + "]";
        if (!j.is_object() || !j.contains("name") || !j["name"].is_string() ||
            !j.contains("axes") || !j.contains("polygon") || !j["polygon"].is_array())
            throw InputError(where + " needs a name, axes and a polygon");
        Gate g;
        g.name = j["name"].get<std::string>();
        try {
            g.axes = TransformPipeline::fromJson(j["axes"]);
        } catch (const InputError& e) {
            throw InputError(where + ".axes: " + e.what());
        }
        for (const auto& v : j["polygon"]) {
            if (!v.is_number())
                throw InputError(where + ".polygon holds a value that is no number");
            g.polygon.push_back(float(v.get<double>()));
        }
        validateGate(g, source);
        gates.push_back(std::move(g));
    }
    return gates;
}

std::vector<Gate> readGatesFile(const std::string& path) {
    io::requireRegularFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot open gates file " + path + ": check the path");
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception&) {
        throw InputError("gates file " + path +
                         " is not valid JSON: export the gates from Sepal (Export > Gates)");
    }
    if (!doc.is_object() || !doc.contains("gates"))
        throw InputError(path + " holds no gates (a gates file, model or session with a " +
                         "\"gates\" field)");
    return gatesFromJson(doc["gates"], path);
}

void writeGatesFile(const std::string& path, const std::vector<Gate>& gates) {
    for (const Gate& g : gates) validateGate(g, "cannot save the gates");
    const nlohmann::json doc = {{"format", "sepal-gates"}, {"gates", gatesToJson(gates)}};
    io::AtomicFile file(path);
    file.write(doc.dump(1) + "\n");
    file.commit();
}

std::string gatedSummary(size_t kept, size_t events, const std::vector<Gate>& gates) {
    std::string names;
    for (const Gate& g : gates) names += (names.empty() ? "" : ", ") + g.name;
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%",
                  events == 0 ? 0.0 : 100.0 * double(kept) / double(events));
    return std::to_string(kept) + " of " + std::to_string(events) + " events (" + share +
           ") are in the gate" + (gates.size() > 1 ? "s " : " ") + names;
}

}  // namespace sepal
