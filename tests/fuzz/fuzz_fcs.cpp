// libFuzzer target: any bytes given to the FCS reader are read or refused with InputError.

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/common/error.h"
#include "core/io/fcs_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> bytes(data, size);
    try {
        const sepal::io::FcsFileInfo info = sepal::io::inspectFcsBytes(bytes, "fuzz.fcs");
        for (size_t d = 0; d < info.datasets.size() && d < 4; ++d) {
            try {
                sepal::io::readFcsBytes(bytes, "fuzz.fcs", {.dataset = d, .raw = (d % 2) == 1});
            } catch (const sepal::InputError&) {
            }
        }
    } catch (const sepal::InputError&) {
    }
    return 0;
}
