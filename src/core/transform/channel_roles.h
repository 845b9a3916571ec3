#pragma once
// Guesses about channels from their names: which instrument, and what each column measures, so
// that only markers are embedded by default (the app and sepal-cli alike).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/io/table.h"

namespace sepal {

/// The kind of instrument a table most likely comes from.
enum class Cytometry { Mass, Fluorescence };

/// What a column measures; every role but Marker is left out of the default embedding.
enum class ChannelRole {
    Marker,       ///< an antibody (or other) marker: embedded by default
    Scatter,      ///< forward or side scatter of a flow cytometer
    Time,         ///< acquisition time
    EventLength,  ///< event (cell) length of a mass cytometer
    Gaussian,     ///< Center, Offset, Width, Residual of a CyTOF's Gaussian discrimination
    Barcode,      ///< sample barcode (palladium isotopes, markers named BC...)
    Dna,          ///< DNA intercalator (iridium 191/193)
    Viability,    ///< live/dead stain (cisplatin, Zombie, 7-AAD, DAPI...)
    Dump,         ///< a dump channel: a live/dead stain and lineages to gate out in one colour
    Beads,        ///< normalisation beads
    Code,         ///< sample, population or cluster codes, event numbers
    Embedding,    ///< coordinates an embedding wrote (embed_x, UMAP, t-SNE)
    Twin,         ///< height or width twin of an area channel ("FL1-H" beside "FL1-A")
    Unlabelled,   ///< an isotope without a marker in a panel whose other channels have one
    Counter,      ///< an instrument's own counters and volume (MACSQuant's HDR-CE, HDR-SE, HDR-V)
    Doublets,     ///< a flow cytometer's doublet discrimination signal (DOUBLET, pulse Width)
    LinearTwin,   ///< a detector's linear amplifier beside its log one ("FL1 Lin", "FL1 Log")
};

/// A metal isotope: element symbol and mass number ("Nd", 142).
struct Isotope {
    std::string element;  ///< "Nd"
    int mass = 0;         ///< 142
};

/// The isotope a mass-cytometry channel name carries: "Nd142Di", "Nd142", "(Sm154)Di",
/// "CD19(Nd142)Di", "142Nd_CD19", "191Ir"; nothing for other names.
std::optional<Isotope> isotopeOf(const std::string& name);

/// True for mass-cytometry channel names: "Nd142Di", "CD19(Nd142)Di", "(Sm154)Di", "142Nd_CD19".
bool isMassChannelName(const std::string& name);

/// True when the channel's marker ($PnS) names a reagent, not empty and not a placeholder that
/// repeats the channel or its isotope ("Pd105Di", "105Pd", "Pd105").
bool hasOwnMarker(const io::Channel& channel);

/// Mass cytometry when most channel names are metal isotopes or $CYT names a CyTOF; else
/// fluorescence when scatter channels exist; else by the data (mass cytometry has many zeros).
Cytometry guessCytometry(const io::Table& table);

/// The role of column `index` of `table`, from its name ($PnN), its marker ($PnS) and, for
/// unlabelled isotopes and twins, the other channels.
ChannelRole channelRole(const io::Table& table, size_t index);

/// channelRole of every column, in column order.
std::vector<ChannelRole> channelRoles(const io::Table& table);

/// A short key for files and JSON: "marker", "dna", "viability", "barcode", "time"...
const char* roleKey(ChannelRole role);

/// The key as words, for a class column people read: "linear twin", "event length"...
std::string roleLabel(ChannelRole role);

/// Why a column is (or is not) embedded, for people: "DNA intercalator", "viability"...
const char* roleReason(ChannelRole role);

/// True for roles an axis shows on a linear scale by default (scatter, time, lengths, the
/// Gaussian parameters, counters, doublet discrimination, linear amplifiers); markers get
/// arcsinh.
bool linearByDefault(ChannelRole role);

/// True for columns that are not markers to embed: channelRole(table, index) != Marker.
bool isTechnicalChannel(const io::Table& table, size_t index);

}  // namespace sepal
