#pragma once
// Decoding the DATA segment of one data set into float32 events.

#include <cstdint>
#include <span>
#include <string>

#include "core/common/matrix.h"
#include "core/io/fcs_dataset.h"

namespace sepal::io::fcs {

/// Decodes the events of `ds` from `file` (the whole file's bytes): events x parameters.
/// `raw`: stored values after bit masking; otherwise linear values ($PnE, $PnG; Time in its ticks).
/// Throws InputError (naming `where`, DATA and the byte offset) when the events cannot be read.
Matrix decodeEvents(const Dataset& ds, std::span<const uint8_t> file, bool raw,
                    const std::string& where);

}  // namespace sepal::io::fcs
