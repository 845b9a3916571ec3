// Fuzz target: the points JSON reader must refuse bad input with InputError, never crash.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/error.h"
#include "core/io/points_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const char* order : {"auto", "zxy"}) {
        try {
            sepal::io::parsePointsJson(text, "fuzz", {order});
        } catch (const sepal::InputError&) {
        }
    }
    return 0;
}
