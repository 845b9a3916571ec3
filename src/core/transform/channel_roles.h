#pragma once
// Guesses about channels from their names: which instrument, which columns are not markers.

#include <cstddef>
#include <string>

#include "core/io/table.h"

namespace sepal {

/// The kind of instrument a table most likely comes from.
enum class Cytometry { Mass, Fluorescence };

/// True for mass-cytometry channel names: "Nd142Di", "CD19(Nd142)Dd", "142Nd_CD19".
bool isMassChannelName(const std::string& name);

/// Mass cytometry when most channel names are metal isotopes or $CYT names a CyTOF; else
/// fluorescence when scatter channels exist; else by the data (mass cytometry has many zeros).
Cytometry guessCytometry(const io::Table& table);

/// True for columns that are not markers to embed: scatter, time, event length and the other
/// acquisition parameters, DNA and barcode channels, population/sample/cluster codes and
/// embedding outputs, and height/width twins of an area channel.
bool isTechnicalChannel(const io::Table& table, size_t index);

}  // namespace sepal
