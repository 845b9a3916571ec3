#pragma once
// What embed and apply write: the input table plus the 2D coordinates, as CSV or FCS, and a
// picture of the embedding coloured the way the user asked.

#include <string>

#include "core/common/matrix.h"
#include "core/io/table.h"
#include "core/raster/picture.h"

namespace sepal {

/// Names of the two added coordinate columns.
inline constexpr const char* kEmbedX = "embed_x";
/// Names of the two added coordinate columns.
inline constexpr const char* kEmbedY = "embed_y";

/// The table with two channels appended (kEmbedX, kEmbedY) holding xy (events x 2).
io::Table withEmbedding(const io::Table& table, const Matrix& xy);

/// Throws InputError unless the path ends in .csv or .fcs (checked before long work starts).
void checkTableExtension(const std::string& path);

/// Writes a table by the path's extension: .csv (header row, labels as text) or .fcs (FCS 3.1,
/// float32; the first label column as the writer's population code with its names, every
/// further one as a parameter of 1-based category numbers, 0 for missing, so a sample column
/// survives in FlowJo). Throws InputError for other extensions.
void writeTableByExtension(const std::string& path, const io::Table& table);

/// A picture request from the command line's `--color` value: "density", "label" (the first
/// label column, the sample column last), a label column's name, or a channel name/marker
/// (its values; `transformed` holds the events x columns matrix whose column names are
/// `transformedColumns`, preferred over raw values when the channel is among them).
raster::PictureSpec pictureSpecFor(const io::Table& table, const std::string& color,
                                   const Matrix& transformed,
                                   const std::vector<std::string>& transformedColumns);

/// Parses "WxH" (e.g. "1200x900") into width and height; throws InputError otherwise.
void parseSize(const std::string& text, int& width, int& height);

}  // namespace sepal
