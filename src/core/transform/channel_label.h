#pragma once
// How channels are shown to people ("CD3 (Sm154Di)") and how the words people type name them
// back: one resolver for every place a user names a channel (--columns, --color, pipelines).

#include <cstddef>
#include <string>
#include <vector>

#include "core/io/table.h"

namespace sepal {

/// "CD3 (Sm154Di)": the marker first, then the channel with a mass channel's isotope written
/// plainly ("(Sm154)Di" becomes "Sm154Di"); the channel name alone when it has no own marker.
std::string channelLabel(const io::Channel& channel);

/// channelLabel of every column, made unique: where two columns would read the same, each gets
/// its column number (" #3").
std::vector<std::string> channelLabels(const io::Table& table);

/// Heads every channel by its label for a CSV table, as the exports head them ("CD45
/// (In115Di)"), so that it reads back as channel and marker: FCS -> CSV -> FCS keeps $PnS.
void headChannelsWithLabels(io::Table& table);

/// For each of `columns` (channel names), the channel's marker when it has one, else the name:
/// what population names and heatmap columns are made of ("CD3+"). A marker on several of the
/// columns is written with its channel on each ("CD14 (Cd112Di)"), so no two names are equal.
std::vector<std::string> markerNames(const io::Table& table,
                                     const std::vector<std::string>& columns);

/// The columns that `word` names, by the first of these that matches any column: the channel
/// name ($PnN); a label (channelLabels) or the plainly written channel; the marker ($PnS). Each
/// is tried exactly, then ignoring case. Empty when nothing matches; several when the word is
/// ambiguous (a marker on two channels).
std::vector<size_t> channelsNamed(const io::Table& table, const std::string& word);

/// The one column `word` names. Throws InputError beginning with `context` (such as
/// "--columns") when the word names several channels ("CD14 is on two channels: Cd112Di,
/// Cd114Di; name one") or none (listing the markers and channel names it could be).
size_t resolveChannel(const io::Table& table, const std::string& word, const std::string& context);

/// The error resolveChannel throws for an ambiguous word, for callers that look up softly.
[[noreturn]] void throwAmbiguousChannel(const io::Table& table, const std::string& word,
                                        const std::vector<size_t>& columns,
                                        const std::string& context);

/// The channel whose compensated values a column holds, by the names FlowJo writes them under:
/// "Comp-FL1-A" and "Comp_FL1-A" -> "FL1-A"; empty for other names.
std::string uncompensatedName(const std::string& name);

/// What FlowJo puts before a channel's name for its compensated values.
inline constexpr const char* kCompensatedPrefix = "Comp-";

/// The name FlowJo gives `channel`'s compensated values: "FL1-A" -> "Comp-FL1-A".
std::string compensatedName(const std::string& channel);

/// The column of `table` holding `channel`'s compensated values under FlowJo's name
/// (uncompensatedName), or -1.
int compensatedColumn(const io::Table& table, const std::string& channel);

/// What a user may type for the table's columns, for error messages: "CD45 (Y89Di), Time, ...".
std::string channelChoices(const io::Table& table);

}  // namespace sepal
