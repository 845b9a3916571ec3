#pragma once
// Assembles FCS files byte by byte (HEADER, TEXT, DATA) so tests can state every quirk exactly.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace sepal::test {

/// Appends `bytes` bytes of `v` in little- or big-endian order.
inline void putInt(std::string& out, uint64_t v, int bytes, bool little) {
    for (int i = 0; i < bytes; ++i) {
        const int shift = little ? 8 * i : 8 * (bytes - 1 - i);
        out.push_back(static_cast<char>((v >> shift) & 0xFF));
    }
}

/// Appends a float32 in the given byte order.
inline void putFloat(std::string& out, float f, bool little) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    putInt(out, u, 4, little);
}

/// Appends a float64 in the given byte order.
inline void putDouble(std::string& out, double d, bool little) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    putInt(out, u, 8, little);
}

/// One FCS data set (or several, chained) described field by field.
struct FcsBuilder {
    std::string version = "FCS3.1";
    char delimiter = '/';
    std::vector<std::pair<std::string, std::string>> keywords;  ///< escaped when rendered
    std::string rawText;        ///< when set, the TEXT segment verbatim (delimiter included)
    std::string data;           ///< the DATA segment
    size_t gap = 0;             ///< bytes of padding between TEXT and DATA
    bool headerOffsets = true;  ///< false: blank HEADER data offsets
    bool textOffsets = true;    ///< $BEGINDATA/$ENDDATA keywords
    int64_t headerBegin = -1, headerEnd = -1;  ///< overrides of the HEADER data offsets
    int64_t textBegin = -1, textEnd = -1;      ///< overrides of $BEGINDATA/$ENDDATA
    std::string trailer;                       ///< bytes after DATA (another data set, a CRC)

    /// Adds keyword `k` with value `v`.
    FcsBuilder& kw(const std::string& k, const std::string& v) {
        keywords.emplace_back(k, v);
        return *this;
    }

    /// Sets $PAR, $PnN, $PnB and $PnR for parameters of the given bits and ranges.
    FcsBuilder& params(const std::vector<std::string>& names, const std::vector<int>& bits,
                       const std::vector<std::string>& ranges) {
        kw("$PAR", std::to_string(names.size()));
        for (size_t i = 0; i < names.size(); ++i) {
            const std::string p = "$P" + std::to_string(i + 1);
            kw(p + "N", names[i]);
            kw(p + "B", std::to_string(bits[i]));
            kw(p + "R", ranges[i]);
        }
        return *this;
    }

    std::string renderText(uint64_t dataBegin, uint64_t dataEnd) const {
        if (!rawText.empty()) return rawText;
        auto esc = [&](const std::string& s) {
            std::string r;
            for (char c : s) {
                r.push_back(c);
                if (c == delimiter) r.push_back(c);
            }
            return r;
        };
        std::string t(1, delimiter);
        auto add = [&](const std::string& k, const std::string& v) {
            t += esc(k) + delimiter + esc(v) + delimiter;
        };
        if (textOffsets) {
            char b[16], e[16];
            std::snprintf(b, sizeof b, "%010llu",
                          static_cast<unsigned long long>(textBegin >= 0 ? textBegin : dataBegin));
            std::snprintf(e, sizeof e, "%010llu",
                          static_cast<unsigned long long>(textEnd >= 0 ? textEnd : dataEnd));
            add("$BEGINDATA", b);
            add("$ENDDATA", e);
        }
        for (const auto& [k, v] : keywords) add(k, v);
        return t;
    }

    /// The file's bytes.
    std::string build() const {
        const std::string probe = renderText(0, 0);  // offsets are fixed width: same length
        const uint64_t textEndAt = 58 + probe.size() - 1;
        const uint64_t dataBegin = textEndAt + 1 + gap;
        const uint64_t dataEnd = data.empty() ? dataBegin : dataBegin + data.size() - 1;
        const std::string text = renderText(dataBegin, dataEnd);
        std::string out = version;
        out.resize(10, ' ');
        auto field = [&](int64_t v, bool blank) {
            char buf[16];
            if (blank)
                std::snprintf(buf, sizeof buf, "%8s", "");
            else
                std::snprintf(buf, sizeof buf, "%8lld", static_cast<long long>(v));
            out += buf;
        };
        field(58, false);
        field(static_cast<int64_t>(58 + text.size() - 1), false);
        field(headerBegin >= 0 ? headerBegin : static_cast<int64_t>(dataBegin), !headerOffsets);
        field(headerEnd >= 0 ? headerEnd : static_cast<int64_t>(dataEnd), !headerOffsets);
        field(0, false);
        field(0, false);
        out += text;
        out += std::string(gap, ' ');
        out += data;
        out += trailer;
        return out;
    }
};

/// The bytes of `s` as a span for the in-memory reader.
inline std::span<const uint8_t> bytesOf(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace sepal::test
