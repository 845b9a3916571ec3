#pragma once
// The FCS TEXT segment: keyword/value pairs between a delimiter byte chosen by the file.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace sepal::io::fcs {

/// Keyword/value pairs of one TEXT (or supplemental TEXT) segment, in file order.
struct TextSegment {
    std::vector<std::pair<std::string, std::string>> keywords;  ///< as written (keys not folded)
    std::vector<std::string> warnings;                          ///< what was odd but readable
};

/// Parses a TEXT segment whose first byte is the delimiter. `doubledIsEscape`: the FCS 3 rule
/// (a doubled delimiter is a literal one) rather than the FCS 2 habit (an empty value); the other
/// reading is used when it alone gives well-formed pairs. `where` names the file for messages,
/// `offset` is the segment's absolute byte offset. Throws InputError when no pairs can be read.
TextSegment parseText(std::span<const uint8_t> text, bool doubledIsEscape, const std::string& where,
                      uint64_t offset);

/// `s` without leading and trailing spaces, tabs, CR, LF and NUL bytes.
std::string trim(const std::string& s);

/// Upper-cased ASCII copy of `s` (keyword names are case-insensitive).
std::string upper(const std::string& s);

}  // namespace sepal::io::fcs
