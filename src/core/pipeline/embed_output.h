#pragma once
// The picture embed writes beside its table (core/pipeline/export_files.h): the embedding
// coloured the way the user asked.

#include <string>

#include "core/common/matrix.h"
#include "core/io/table.h"
#include "core/raster/picture.h"

namespace sepal {

/// A picture request from the command line's `--color` value: "density", "label" (the first
/// label column, the sample column last), a label column's name, or a channel name/marker
/// (its values; `transformed` holds the events x columns matrix whose column names are
/// `transformedColumns`, preferred over raw values when the channel is among them).
raster::PictureSpec pictureSpecFor(const io::Table& table, const std::string& color,
                                   const Matrix& transformed,
                                   const std::vector<std::string>& transformedColumns);

/// Parses "WxH" (e.g. "1200x900", each side 16 to 16384) into width and height; throws
/// InputError otherwise.
void parseSize(const std::string& text, int& width, int& height);

}  // namespace sepal
