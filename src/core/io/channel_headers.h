#pragma once
// A table's column headers that name a cytometer's channel and its marker together, as Sepal's
// CSV export writes them ("CD45 (In115Di)") and as other tools do ("Comp-FITC-A :: CD3").

#include "core/io/table.h"

namespace sepal::io {

/// Splits each header of the forms "MARKER (CHANNEL)" and "CHANNEL :: MARKER" into the channel's
/// name and its marker, as an FCS file's $PnN and $PnS hold them, when CHANNEL reads as a
/// cytometer's channel: a metal isotope ("In115Di"), a detector's area, height or width
/// ("FITC-A", "BL 530/30-A"), a numbered fluorescence ("FL1 INT LOG"), scatter or time; never a
/// unit ("area (m2)"). Headers stay whole when splitting would give two columns one name.
void splitChannelHeaders(Table& table);

}  // namespace sepal::io
