#include "core/raster/png.h"

#include "core/common/error.h"
#include "core/io/atomic_file.h"

// File-local implementation: the GUI may compile its own copy of stb_image_write.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace sepal::raster {
namespace {

void appendBytes(void* context, void* data, int size) {
    auto* out = static_cast<std::vector<uint8_t>*>(context);
    const auto* bytes = static_cast<const uint8_t*>(data);
    out->insert(out->end(), bytes, bytes + size);
}

}  // namespace

std::vector<uint8_t> encodePng(const Image& image) {
    if (image.width <= 0 || image.height <= 0)
        throw InputError("cannot encode an empty picture as PNG: give a size such as 800x800");
    std::vector<uint8_t> bytes;
    if (!stbi_write_png_to_func(appendBytes, &bytes, image.width, image.height, 4,
                                image.pixels.data(), image.width * 4))
        throw InputError("PNG encoding failed for a " + std::to_string(image.width) + "x" +
                         std::to_string(image.height) + " picture");
    return bytes;
}

void writePng(const std::string& path, const Image& image) {
    const std::vector<uint8_t> bytes = encodePng(image);
    io::AtomicFile file(path);
    file.write(bytes.data(), bytes.size());
    file.commit();
}

}  // namespace sepal::raster
