// libFuzzer target: the CSV reader over arbitrary bytes must either parse or throw InputError.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/common/error.h"
#include "core/io/csv_reader.h"
#include "core/transform/pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // The first byte picks the header and delimiter options so that all paths are explored.
    sepal::io::CsvReadOptions options;
    if (size > 0) {
        options.header = static_cast<sepal::io::CsvHeader>(data[0] % 3);
        static constexpr char kDelimiters[] = {0, ',', '\t', ';'};
        options.delimiter = kDelimiters[(data[0] >> 2) % 4];
    }
    try {
        const sepal::io::Table table =
            sepal::io::parseCsv(bytes.substr(size > 0 ? 1 : 0), options, "fuzz.csv");
        if (table.values.values.size() != table.events() * table.channels.size()) __builtin_trap();
        for (const auto& label : table.labels)
            if (label.codes.size() != table.events()) __builtin_trap();
        // The default pipeline must apply to whatever was read.
        if (!table.channels.empty()) sepal::TransformPipeline::defaultFor(table).apply(table);
    } catch (const sepal::InputError&) {
    }
    return 0;
}
