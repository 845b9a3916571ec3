#include "core/io/fcs_text.h"

#include <algorithm>
#include <cctype>

#include "core/common/error.h"

namespace sepal::io::fcs {

namespace {

struct Tokens {
    std::vector<std::string> items;
    bool missingFinalDelimiter = false;
};

Tokens tokenize(std::span<const uint8_t> text, bool doubledIsEscape) {
    Tokens t;
    const uint8_t delimiter = text[0];
    std::string current;
    size_t i = 1;
    while (i < text.size()) {
        const uint8_t c = text[i];
        if (c == delimiter) {
            if (doubledIsEscape && i + 1 < text.size() && text[i + 1] == delimiter) {
                current.push_back(static_cast<char>(c));
                i += 2;
                continue;
            }
            t.items.push_back(std::move(current));
            current.clear();
        } else {
            current.push_back(static_cast<char>(c));
        }
        ++i;
    }
    // Writers pad TEXT with spaces or NULs after the last delimiter; a real leftover value means
    // the final delimiter is missing.
    if (!trim(current).empty()) {
        t.items.push_back(std::move(current));
        t.missingFinalDelimiter = true;
    }
    return t;
}

/// A short printable excerpt of `s` for messages (keywords may hold binary junk).
std::string excerpt(const std::string& s) {
    std::string r;
    for (char c : s) {
        if (r.size() >= 40) return r + "...";
        r.push_back(c >= 32 && c < 127 ? c : '?');
    }
    return r;
}

bool wellFormed(const Tokens& t) {
    if (t.items.size() < 2 || t.items.size() % 2 != 0) return false;
    for (size_t i = 0; i < t.items.size(); i += 2)
        if (trim(t.items[i]).empty()) return false;
    return true;
}

}  // namespace

std::string trim(const std::string& s) {
    auto blank = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0';
    };
    size_t b = 0, e = s.size();
    while (b < e && blank(s[b])) ++b;
    while (e > b && blank(s[e - 1])) --e;
    return s.substr(b, e - b);
}

std::string upper(const std::string& s) {
    std::string r = s;
    for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return r;
}

TextSegment parseText(std::span<const uint8_t> text, bool doubledIsEscape, const std::string& where,
                      uint64_t offset) {
    TextSegment seg;
    if (text.size() < 2)
        throw InputError(where + ": TEXT segment at byte " + std::to_string(offset) +
                         " is empty; the file is damaged or not an FCS file");
    Tokens tokens = tokenize(text, doubledIsEscape);
    if (!wellFormed(tokens)) {
        Tokens other = tokenize(text, !doubledIsEscape);
        if (wellFormed(other)) {
            tokens = std::move(other);
            seg.warnings.push_back(
                doubledIsEscape
                    ? "TEXT: doubled delimiters read as empty values (the FCS 2 habit)"
                    : "TEXT: doubled delimiters read as escaped delimiters (the FCS 3 rule)");
        }
    }
    if (tokens.missingFinalDelimiter)
        seg.warnings.push_back("TEXT: the segment does not end with its delimiter");
    if (tokens.items.size() % 2 != 0) {
        seg.warnings.push_back("TEXT: keyword '" + excerpt(tokens.items.back()) +
                               "' has no value; it was dropped");
        tokens.items.pop_back();
    }
    for (size_t i = 0; i + 1 < tokens.items.size(); i += 2) {
        std::string key = trim(tokens.items[i]);
        if (key.empty()) {
            seg.warnings.push_back("TEXT: an empty keyword name was skipped");
            continue;
        }
        seg.keywords.emplace_back(std::move(key), std::move(tokens.items[i + 1]));
    }
    if (seg.keywords.empty())
        throw InputError(where + ": TEXT segment at byte " + std::to_string(offset) +
                         " holds no keyword/value pairs; the file is damaged or not an FCS file");
    return seg;
}

}  // namespace sepal::io::fcs
