#pragma once
// Gates: polygons on a biaxial plot of two channels, as a cytometrist draws them to clean the data
// before embedding (live cells on DNA vs viability, singlets) and to look at a population on two
// markers. A cell is in a gate when its two scaled values lie inside the polygon; a list of gates
// keeps the cells inside every one of them. Gates travel in models and sessions, so the app and
// sepal-cli restrict training and projection to the same cells.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io/table.h"
#include "core/transform/pipeline.h"

namespace sepal {

/// One gate: a named polygon in the scaled units of two channels.
struct Gate {
    std::string name;            ///< what the user calls it ("live", "singlets")
    TransformPipeline axes;      ///< two columns, x then y: channel, transform, compensation
    std::vector<float> polygon;  ///< x y pairs in the axes' units; at least 3 vertices
    bool operator==(const Gate& other) const;
};

/// The axes a biaxial plot of channels x and y (names or markers) starts with: linear for
/// scatter and time, else arcsinh with cofactor 5 (mass cytometry) or 150 (fluorescence); with
/// `compensation` (the data's). Throws InputError when a channel is not in the table.
TransformPipeline gateAxes(const io::Table& table, const std::string& x, const std::string& y,
                           const CompensationStep& compensation);

/// The polygon of the rectangle with corners (x0, y0) and (x1, y1).
std::vector<float> rectanglePolygon(float x0, float y0, float x1, float y1);

/// True when (x, y) lies inside the polygon (x y pairs; even-odd rule); NaN is outside.
bool insidePolygon(const std::vector<float>& polygon, float x, float y);

/// Checks a gate: a name, two axis columns, a polygon of at least 3 finite vertices. Throws
/// InputError naming `source` and the gate.
void validateGate(const Gate& gate, const std::string& source);

/// Per event of the table: 1 when inside every gate (all 1 without gates). Throws InputError
/// naming the gate and the channel the table lacks.
std::vector<uint8_t> insideGates(const io::Table& table, const std::vector<Gate>& gates);

/// The gates as JSON (an array of {name, axes, polygon}; axes in the transform's format).
nlohmann::json gatesToJson(const std::vector<Gate>& gates);
/// Reads gates from JSON; `source` names the file in errors. Throws InputError naming the field.
std::vector<Gate> gatesFromJson(const nlohmann::json& json, const std::string& source);

/// Reads the gates of a JSON file: a gates file (the app's Export > Gates), a model or a session
/// (their "gates" field). Throws InputError naming the file and what is wrong.
std::vector<Gate> readGatesFile(const std::string& path);
/// Writes {"format": "sepal-gates", "gates": [...]} atomically. Throws InputError.
void writeGatesFile(const std::string& path, const std::vector<Gate>& gates);

/// "12345 of 20000 events (61.7%) are in the gates live, singlets": what is said after gating.
std::string gatedSummary(size_t inside, size_t events, const std::vector<Gate>& gates);

}  // namespace sepal
