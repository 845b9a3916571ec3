#pragma once
// PNG encoding of pictures (stb_image_write), written atomically.

#include <cstdint>
#include <string>
#include <vector>

#include "core/raster/image.h"

namespace sepal::raster {

/// The image as PNG file bytes (RGBA, 8 bits per channel).
std::vector<uint8_t> encodePng(const Image& image);

/// Writes the image as a PNG file (to a temporary name, then renamed); throws InputError when the
/// file cannot be written or the image is empty.
void writePng(const std::string& path, const Image& image);

}  // namespace sepal::raster
