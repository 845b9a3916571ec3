#pragma once
// Point clouds stored as JSON (the 3D 'mammoth' shapes and similar): [[x, y, z], ...] or
// [{"x": .., "y": .., "z": ..}, ...]. See docs/FORMATS.md for the column-order rule.

#include <string>

#include "core/io/table.h"

namespace sepal::io {

/// How columns of a points JSON file are named and ordered.
struct PointsJsonOptions {
    /// For arrays of 3 numbers: "auto" (x, y, z by decreasing spread, see docs/FORMATS.md),
    /// "file" (x, y, z in stored order), or the stored order as a permutation of "xyz"
    /// (e.g. "zxy": the file stores z first). Ignored for arrays of objects (keys name columns).
    std::string axisOrder = "auto";
};

/// Reads a points JSON file into a Table (one channel per coordinate, no labels). Throws
/// InputError naming the file, the byte offset (line and column) or point index, and the fix.
Table readPointsJson(const std::string& path, const PointsJsonOptions& options = {});

/// Same, from JSON text in memory; `source` names it in messages.
Table parsePointsJson(const std::string& text, const std::string& source,
                      const PointsJsonOptions& options = {});

}  // namespace sepal::io
