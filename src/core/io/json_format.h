#pragma once
// Sepal's JSON files (models, sessions) say what they are in a "format" field, so that one
// Open can tell a model from a session from a table of points.

#include <string>

namespace sepal::io {

/// The "format" field of `path` when it is a regular file named *.json holding a JSON object
/// with one; "" otherwise (no such file, not JSON, another kind of JSON).
std::string jsonFileFormat(const std::string& path);

}  // namespace sepal::io
