#include "core/io/fcs_dataset.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "core/common/error.h"
#include "core/io/fcs_text.h"

namespace sepal::io::fcs {

namespace {

constexpr size_t kHeaderBytes = 58;
constexpr size_t kMaxParameters = 100000;
constexpr size_t kMaxDatasets = 10000;

std::string at(const std::string& where, const char* segment, uint64_t offset) {
    return where + ": " + segment + " at byte " + std::to_string(offset) + ": ";
}

std::optional<uint64_t> parseUnsigned(const std::string& text) {
    const std::string t = trim(text);
    if (t.empty()) return std::nullopt;
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
    return v;
}

std::optional<double> parseDouble(const std::string& text) {
    std::string t = trim(text);
    if (!t.empty() && t[0] == '+') t.erase(0, 1);
    if (t.empty()) return std::nullopt;
    double v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

// Log amplification offset * 10^(decades * v / range) passes the largest float for large f1:
// those values would silently become infinite, so the reader says where that starts.
std::optional<std::string> logOverflowWarning(const Parameter& p, const std::string& what) {
    const double limit = std::log10(static_cast<double>(std::numeric_limits<float>::max()));
    const double headroom = limit - std::log10(p.logOffset);
    if (p.logDecades <= headroom) return std::nullopt;
    const double fraction = std::max(0.0, headroom / p.logDecades);
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.3g%%", 100.0 * fraction);
    return what + " for channel " + p.name + ": stored values above " + percent +
           " of the range become infinite (past the largest float, about 3.4e38); such events "
           "are left out of training and placed at their neighbours. Four or five decades "
           "are usual: check the file's $PnE";
}

struct Header {
    std::string version;
    uint64_t field[6] = {0, 0, 0, 0, 0, 0};  // TEXT, DATA, ANALYSIS begin/end, relative
};

Header parseHeader(std::span<const uint8_t> file, uint64_t start, const std::string& where) {
    Header h;
    if (start >= file.size() || file.size() - start < kHeaderBytes)
        throw InputError(at(where, "HEADER", start) + "only " +
                         std::to_string(start < file.size() ? file.size() - start : 0) +
                         " bytes where a 58-byte FCS HEADER was expected: the file is truncated "
                         "or not an FCS file");
    const auto* b = file.data() + start;
    if (std::memcmp(b, "FCS", 3) != 0) {
        std::string seen;
        for (size_t i = 0; i < 6; ++i)
            seen.push_back(std::isprint(b[i]) ? static_cast<char>(b[i]) : '?');
        throw InputError(at(where, "HEADER", start) + "found '" + seen +
                         "' where 'FCSx.y' was expected: this is not an FCS file");
    }
    h.version = trim(std::string(reinterpret_cast<const char*>(b), 6));
    for (int i = 0; i < 6; ++i) {
        const std::string field(reinterpret_cast<const char*>(b + 10 + 8 * i), 8);
        if (trim(field).empty()) continue;  // blank: offsets are only in TEXT
        auto v = parseUnsigned(field);
        if (!v)
            throw InputError(at(where, "HEADER", start + 10 + 8 * i) + "offset field '" + field +
                             "' is not a number: the HEADER is damaged");
        h.field[i] = *v;
    }
    return h;
}

class Lookup {
  public:
    explicit Lookup(const std::vector<std::pair<std::string, std::string>>& kw) : m_kw(kw) {
        for (size_t i = 0; i < kw.size(); ++i) m_index.emplace(upper(kw[i].first), i);
    }
    const std::string* get(const std::string& key) const {
        auto it = m_index.find(key);
        return it == m_index.end() ? nullptr : &m_kw[it->second].second;
    }
    std::string trimmed(const std::string& key) const {
        const std::string* v = get(key);
        return v ? trim(*v) : std::string();
    }

  private:
    const std::vector<std::pair<std::string, std::string>>& m_kw;
    std::unordered_map<std::string, size_t> m_index;
};

std::string pkey(size_t n, const char* suffix) {
    return "$P" + std::to_string(n) + suffix;
}

bool byteOrderIsLittle(const std::string& value, bool& ok) {
    std::vector<int> order;
    std::string token;
    for (char c : value + ",") {
        if (c == ',') {
            auto v = parseUnsigned(token);
            if (!v) {
                ok = false;
                return true;
            }
            order.push_back(static_cast<int>(*v));
            token.clear();
        } else {
            token.push_back(c);
        }
    }
    const int n = static_cast<int>(order.size());
    bool ascending = n > 0, descending = n > 0;
    for (int i = 0; i < n; ++i) {
        ascending = ascending && order[i] == i + 1;
        descending = descending && order[i] == n - i;
    }
    ok = ascending || descending;
    return ascending;
}

/// a + b, or the largest value when that overflows (offsets from TEXT are arbitrary numbers).
uint64_t saturatingAdd(uint64_t a, uint64_t b) {
    return a + b < a ? ~0ull : a + b;
}

uint64_t widthMask(int bits) {
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

uint64_t rangeMask(double range, int bits) {
    const uint64_t full = widthMask(bits);
    if (!(range > 1) || range >= 18446744073709551615.0) return full;
    const auto r = static_cast<uint64_t>(std::ceil(range));
    uint64_t p = 1;
    while (p < r && p < (1ull << 63)) p <<= 1;
    return std::min(full, p - 1);
}

void readParameters(Dataset& ds, const Lookup& kw, size_t count, const std::string& where,
                    uint64_t textOffset) {
    const bool isTimeStepSet = kw.get("$TIMESTEP") != nullptr;
    const double timestep = parseDouble(kw.trimmed("$TIMESTEP")).value_or(0);
    if (isTimeStepSet && !(timestep > 0))
        ds.warnings.push_back("$TIMESTEP '" + kw.trimmed("$TIMESTEP") +
                              "' is not a positive number; time is left in stored units");
    size_t offset = 0;
    bool nameFallback = false;
    for (size_t n = 1; n <= count; ++n) {
        Parameter p;
        p.marker = kw.trimmed(pkey(n, "S"));
        p.name = kw.trimmed(pkey(n, "N"));
        if (p.name.empty()) {
            p.name = p.marker.empty() ? "P" + std::to_string(n) : p.marker;
            nameFallback = true;
        }
        if (auto r = parseDouble(kw.trimmed(pkey(n, "R")))) p.range = *r;
        const std::string bits = kw.trimmed(pkey(n, "B"));
        char ptype = ds.datatype;
        if (const std::string* own = kw.get(pkey(n, "DATATYPE"))) {
            const std::string t = upper(trim(*own));
            if (t == "I" || t == "F" || t == "D") ptype = t[0];
        }
        if (ds.datatype == 'A') {
            if (bits == "*") {
                ds.delimitedAscii = true;
                p.bits = 0;
            } else {
                auto b = parseUnsigned(bits);
                if (!b || *b == 0 || *b > 64)
                    throw InputError(at(where, "TEXT", textOffset) + pkey(n, "B") + " '" + bits +
                                     "' is not a width in characters for ASCII data");
                p.bits = static_cast<int>(*b);
                p.bytes = p.bits;
            }
        } else {
            auto b = parseUnsigned(bits);
            if (!b)
                throw InputError(at(where, "TEXT", textOffset) + pkey(n, "B") + " '" + bits +
                                 "' is missing or not a number of bits");
            p.bits = static_cast<int>(std::min<uint64_t>(*b, 1024));
            if (ptype == 'I') {
                if (p.bits < 8 || p.bits > 64 || p.bits % 8 != 0)
                    throw InputError(at(where, "TEXT", textOffset) + pkey(n, "B") + " = " + bits +
                                     ": integer widths must be whole bytes from 8 to 64 bits; "
                                     "this packing is not supported");
                p.bytes = p.bits / 8;
                p.mask = rangeMask(p.range, p.bits);
            } else {
                const int want = ptype == 'F' ? 32 : 64;
                if (p.bits != want)
                    ds.warnings.push_back(pkey(n, "B") + " = " + bits + " for " +
                                          (ptype == 'F' ? "float" : "double") + " data; read as " +
                                          std::to_string(want) + " bits");
                p.bits = want;
                p.bytes = want / 8;
            }
        }
        p.offset = offset;
        offset += static_cast<size_t>(p.bytes);
        const std::string e = kw.trimmed(pkey(n, "E"));
        if (!e.empty()) {
            const auto comma = e.find(',');
            auto f1 = parseDouble(e.substr(0, comma));
            auto f2 = comma == std::string::npos ? std::optional<double>(0)
                                                 : parseDouble(e.substr(comma + 1));
            if (!f1 || !f2) {
                ds.warnings.push_back(pkey(n, "E") + " '" + e + "' is unreadable; taken as 0,0");
            } else if (*f1 > 0) {
                if (ptype != 'I') {
                    ds.warnings.push_back(pkey(n, "E") + " = " + e +
                                          " on floating-point data is ignored (values are linear)");
                } else {
                    p.logDecades = *f1;
                    p.logOffset = *f2 > 0 ? *f2 : 1.0;
                    if (!(*f2 > 0))
                        ds.warnings.push_back(pkey(n, "E") + " = " + e +
                                              ": offset 0 read as 1 (the usual meaning)");
                    if (const auto w = logOverflowWarning(p, pkey(n, "E") + " = " + e))
                        ds.warnings.push_back(*w);
                }
            }
        }
        // A MACSQuant names its time HDR-T.
        p.isTime = upper(p.name) == "TIME" || upper(p.name) == "HDR-T";
        // $PnG is an amplifier's gain: the time channel has none. (BD's instruments write
        // $PnG = $TIMESTEP = 0.01 for it; divided by it, a two-minute acquisition read as three
        // hours, and sepal-cli convert's Time was a hundred times embed's.)
        if (auto g = parseDouble(kw.trimmed(pkey(n, "G"))); g && *g > 0 && !p.isTime) p.gain = *g;
        if (p.isTime && timestep > 0) p.timestep = timestep;
        p.type = ptype;
        ds.parameters.push_back(std::move(p));
    }
    if (nameFallback)
        ds.warnings.push_back("some parameters have no $PnN; their $PnS (or Pn) names them");
    ds.eventBytes = offset;
}

struct Candidate {
    const char* label;
    uint64_t begin = 0, end = 0;  // absolute, inclusive
    bool present = false;
};

std::string rangeText(const Candidate& c) {
    return std::to_string(c.begin) + "-" + std::to_string(c.end);
}

// The number of parameters the TEXT names: $PnN (or $PnB) keywords from n = 1 on, past $PAR.
size_t describedParameters(const Lookup& kw, size_t par) {
    size_t n = par;
    while (n < kMaxParameters && (kw.get(pkey(n + 1, "N")) || kw.get(pkey(n + 1, "B")))) ++n;
    return n;
}

// True when the TEXT names parameters past $PAR and a DATA segment of `length` bytes holds
// exactly $TOT events of all of them (each of its $PnB bits, else as wide as the last of $PAR).
bool describedBeyondPar(const Dataset& ds, const Lookup& kw, uint64_t length) {
    const size_t par = ds.parameters.size(), described = describedParameters(kw, par);
    if (described == par || ds.events == 0 || par == 0) return false;
    uint64_t bytes = ds.eventBytes;
    for (size_t n = par + 1; n <= described; ++n) {
        const auto bits = parseUnsigned(kw.trimmed(pkey(n, "B")));
        bytes +=
            bits && *bits % 8 == 0 && *bits > 0 ? *bits / 8 : uint64_t(ds.parameters.back().bytes);
    }
    uint64_t need = 0;
    return !__builtin_mul_overflow(uint64_t(ds.events), bytes, &need) && need == length;
}

void locateData(Dataset& ds, std::span<const uint8_t> file, const Header& h, const Lookup& kw,
                bool totKnown) {
    // DATA never overlaps the data set's own HEADER and TEXT: such offsets are wrong.
    const uint64_t textBegin = ds.start + h.field[0], textEnd = ds.start + h.field[1];
    auto overlapsText = [&](const Candidate& c) {
        return c.begin < ds.start + kHeaderBytes || (c.begin <= textEnd && c.end >= textBegin);
    };
    Candidate header{"HEADER"}, text{"$BEGINDATA/$ENDDATA"};
    if (h.field[2] != 0 || h.field[3] != 0) {
        header.present = true;
        header.begin = ds.start + h.field[2];
        header.end = ds.start + h.field[3];
    }
    auto tb = parseUnsigned(kw.trimmed("$BEGINDATA"));
    auto te = parseUnsigned(kw.trimmed("$ENDDATA"));
    if (tb && te && (*tb != 0 || *te != 0)) {
        text.present = true;
        text.begin = saturatingAdd(ds.start, *tb);
        text.end = saturatingAdd(ds.start, *te);
    }
    const uint64_t size = file.size();
    const std::string overrunNote =
        " ends one byte past the end of the file (" + std::to_string(size) +
        " bytes), a common $ENDDATA off-by-one; the data ends at the file's last byte and is read "
        "whole";
    if (ds.delimitedAscii || !totKnown) {
        for (Candidate* c : {&header, &text}) {
            if (c->present && c->end == size && c->begin < c->end && !overlapsText(*c)) {
                ds.warnings.push_back("DATA segment (bytes " + rangeText(*c) + ")" + overrunNote);
                c->end = size - 1;
            }
            if (!c->present || c->begin > c->end || c->end >= size || overlapsText(*c)) continue;
            ds.dataBegin = c->begin;
            ds.dataLength = c->end - c->begin + 1;
            if (ds.delimitedAscii && totKnown && ds.events > ds.dataLength / ds.parameters.size()) {
                ds.dataError = "DATA segment: " + std::to_string(ds.dataLength) +
                               " bytes of ASCII cannot hold $TOT = " + std::to_string(ds.events) +
                               " events";
                return;
            }
            if (!totKnown && ds.eventBytes > 0) {
                ds.events = static_cast<size_t>(ds.dataLength / ds.eventBytes);
                ds.warnings.push_back("$TOT is missing; " + std::to_string(ds.events) +
                                      " events inferred from the DATA segment's length");
                ds.dataLength = ds.events * ds.eventBytes;
            }
            return;
        }
        ds.dataError = "DATA segment: no offsets inside the file";
        return;
    }
    uint64_t need = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(ds.events), ds.eventBytes, &need)) {
        ds.dataError = "DATA segment: $TOT = " + std::to_string(ds.events) +
                       " events cannot fit in any file; the TEXT is damaged";
        return;
    }
    if (need == 0) {
        ds.dataBegin = 0;
        ds.dataLength = 0;
        return;
    }
    // The off-by-one $ENDDATA of a file whose DATA is its last `need` bytes: the data is whole.
    auto overrun = [&](const Candidate& c) {
        return c.present && c.end == size && c.begin + need == size && !overlapsText(c);
    };
    // Score: 0 exact length, 1 one byte long (a common off-by-one $ENDDATA, inside the file or
    // one byte past its end), 2 longer; -1 unusable.
    auto score = [&](const Candidate& c) {
        if (overrun(c)) return 1;
        if (!c.present || c.begin > c.end || c.end >= size || overlapsText(c)) return -1;
        const uint64_t len = c.end - c.begin + 1;
        if (len == need) return 0;
        if (len == need + 1) return 1;
        if (len > need) return 2;
        return -1;
    };
    const int sh = score(header), st = score(text);
    const Candidate* chosen = nullptr;
    int s = -1;
    if (sh >= 0 && (st < 0 || sh <= st)) {
        chosen = &header;
        s = sh;
    } else if (st >= 0) {
        chosen = &text;
        s = st;
    }
    if (!chosen) {
        std::string msg = "DATA segment: " + std::to_string(ds.events) + " events x " +
                          std::to_string(ds.eventBytes) + " bytes need " + std::to_string(need) +
                          " bytes, but ";
        const Candidate* past = nullptr;
        for (const Candidate* c : {&header, &text})
            if (c->present && (c->end >= size || c->begin + need > size)) past = c;
        if (past) {
            msg += "the " + std::string(past->label) + " offsets (bytes " + rangeText(*past) +
                   ") run past the end of the file (" + std::to_string(size) + " bytes) at byte " +
                   std::to_string(std::min<uint64_t>(past->begin, size)) +
                   ": the file is truncated";
        } else if (!header.present && !text.present) {
            msg += "neither the HEADER nor $BEGINDATA/$ENDDATA give the DATA offsets";
        } else {
            msg += "neither the HEADER offsets (" +
                   (header.present ? rangeText(header) : std::string("blank")) +
                   ") nor $BEGINDATA/$ENDDATA (" +
                   (text.present ? rangeText(text) : std::string("absent")) +
                   ") give a range of that length inside the file";
        }
        ds.dataError = msg + "; the events cannot be read";
        return;
    }
    ds.dataBegin = chosen->begin;
    ds.dataLength = need;
    const Candidate& other = chosen == &header ? text : header;
    if (other.present && (other.begin != chosen->begin || other.end != chosen->end)) {
        ds.warnings.push_back(std::string("DATA offsets disagree: HEADER ") +
                              (header.present ? rangeText(header) : "blank") +
                              ", $BEGINDATA/$ENDDATA " + rangeText(text) + "; using the " +
                              chosen->label + " offsets, whose range lies inside the file and " +
                              "fits $TOT x event size");
    }
    if (overrun(*chosen))
        ds.warnings.push_back("DATA segment (bytes " + rangeText(*chosen) + ")" + overrunNote);
    else if (s > 0 && describedBeyondPar(ds, kw, chosen->end - chosen->begin + 1))
        ds.dataError =
            "$PAR is " + std::to_string(ds.parameters.size()) + ", but the TEXT describes " +
            std::to_string(describedParameters(kw, ds.parameters.size())) +
            " parameters ($PnN keywords) and the DATA segment holds exactly that many a "
            "event: $PAR is wrong, and reading " +
            std::to_string(ds.parameters.size()) +
            " would misalign every event; the events cannot be read (correct $PAR in the file)";
    else if (s > 0)
        ds.warnings.push_back("DATA segment (bytes " + rangeText(*chosen) + ") is " +
                              std::to_string(chosen->end - chosen->begin + 1 - need) +
                              " bytes longer than $TOT x event size; the extra bytes are ignored");
}

void checkAnalysis(Dataset& ds, std::span<const uint8_t> file, const Header& h, const Lookup& kw) {
    uint64_t b = h.field[4], e = h.field[5];
    if (b == 0 && e == 0) {
        b = parseUnsigned(kw.trimmed("$BEGINANALYSIS")).value_or(0);
        e = parseUnsigned(kw.trimmed("$ENDANALYSIS")).value_or(0);
    }
    if ((b != 0 || e != 0) && (b > e || saturatingAdd(ds.start, e) >= file.size()))
        ds.warnings.push_back("ANALYSIS segment at byte " + std::to_string(ds.start + b) +
                              " lies outside the file; it is ignored");
}

void readSupplementalText(Dataset& ds, std::span<const uint8_t> file, const Lookup& kw, bool escape,
                          const std::string& where) {
    auto b = parseUnsigned(kw.trimmed("$BEGINSTEXT"));
    auto e = parseUnsigned(kw.trimmed("$ENDSTEXT"));
    if (!b || !e || (*b == 0 && *e == 0)) return;
    const uint64_t begin = saturatingAdd(ds.start, *b), end = saturatingAdd(ds.start, *e);
    if (*b > *e || end >= file.size()) {
        ds.warnings.push_back("supplemental TEXT at byte " + std::to_string(begin) +
                              " lies outside the file; it is ignored");
        return;
    }
    try {
        TextSegment s = parseText(file.subspan(begin, end - begin + 1), escape, where, begin);
        std::vector<std::string> known;
        for (const auto& [k, v] : ds.keywords) known.push_back(upper(k));
        for (auto& kv : s.keywords)
            if (std::find(known.begin(), known.end(), upper(kv.first)) == known.end())
                ds.keywords.push_back(std::move(kv));
        for (auto& w : s.warnings) ds.warnings.push_back("supplemental " + w);
    } catch (const InputError& err) {
        ds.warnings.push_back(std::string("supplemental TEXT is unreadable and ignored: ") +
                              err.what());
    }
}

}  // namespace

const std::string* Dataset::keyword(const std::string& key) const {
    const std::string k = upper(key);
    for (const auto& [name, value] : keywords)
        if (upper(name) == k) return &value;
    return nullptr;
}

Dataset parseDataset(std::span<const uint8_t> file, uint64_t start, const std::string& where) {
    Dataset ds;
    ds.start = start;
    const Header h = parseHeader(file, start, where);
    ds.version = h.version;
    if (ds.version == "FCS1.0")
        throw InputError(at(where, "HEADER", start) +
                         "FCS1.0 files are not supported; convert them to FCS 3.1 first");
    if (ds.version != "FCS2.0" && ds.version != "FCS3.0" && ds.version != "FCS3.1" &&
        ds.version != "FCS3.2")
        ds.warnings.push_back("unknown version '" + ds.version + "'; read as FCS 3.1");
    const uint64_t textBegin = start + h.field[0], textEnd = start + h.field[1];
    if (h.field[0] < kHeaderBytes || h.field[1] <= h.field[0])
        throw InputError(at(where, "HEADER", start + 10) + "TEXT offsets " +
                         std::to_string(h.field[0]) + "-" + std::to_string(h.field[1]) +
                         " are not a valid range: the HEADER is damaged");
    if (textEnd >= file.size())
        throw InputError(at(where, "TEXT", textBegin) + "the TEXT segment (bytes " +
                         std::to_string(textBegin) + "-" + std::to_string(textEnd) +
                         ") runs past the end of the file (" + std::to_string(file.size()) +
                         " bytes): the file is truncated");
    const bool escape = ds.version != "FCS2.0";
    TextSegment text =
        parseText(file.subspan(textBegin, textEnd - textBegin + 1), escape, where, textBegin);
    ds.keywords = std::move(text.keywords);
    ds.warnings.insert(ds.warnings.end(), text.warnings.begin(), text.warnings.end());
    {
        Lookup first(ds.keywords);
        readSupplementalText(ds, file, first, escape, where);
    }
    Lookup kw(ds.keywords);
    {
        std::unordered_map<std::string, int> seen;
        for (const auto& [k, v] : ds.keywords)
            if (++seen[upper(k)] == 2)
                ds.warnings.push_back("keyword " + k +
                                      " appears more than once; the first is used");
    }

    auto par = parseUnsigned(kw.trimmed("$PAR"));
    if (!par || *par == 0 || *par > kMaxParameters)
        throw InputError(at(where, "TEXT", textBegin) + "$PAR is " +
                         (kw.get("$PAR") ? "'" + kw.trimmed("$PAR") + "'" : "missing") +
                         "; a data set needs a positive number of parameters");
    const std::string type = upper(kw.trimmed("$DATATYPE"));
    if (type != "I" && type != "F" && type != "D" && type != "A")
        throw InputError(at(where, "TEXT", textBegin) + "$DATATYPE is " +
                         (type.empty() ? "missing" : "'" + type + "'") +
                         "; it must be I, F, D or A");
    ds.datatype = type[0];
    const std::string mode = upper(kw.trimmed("$MODE"));
    if (mode.empty())
        ds.warnings.push_back("$MODE is missing; read as list mode (L)");
    else if (mode != "L")
        throw InputError(at(where, "TEXT", textBegin) + "$MODE " + mode +
                         " (histograms) is not supported; only list mode (L) holds events");
    if (ds.datatype != 'A') {
        const std::string order = kw.trimmed("$BYTEORD");
        bool ok = true;
        ds.littleEndian = byteOrderIsLittle(order, ok);
        if (order.empty()) {
            ds.littleEndian = true;
            ds.warnings.push_back("$BYTEORD is missing; read as little-endian (1,2,3,4)");
        } else if (!ok) {
            throw InputError(at(where, "TEXT", textBegin) + "$BYTEORD '" + order +
                             "' is not supported; only 1,2,3,4 and 4,3,2,1 (or 1,2 and 2,1)");
        }
    }
    readParameters(ds, kw, static_cast<size_t>(*par), where, textBegin);

    auto tot = parseUnsigned(kw.trimmed("$TOT"));
    if (!tot && kw.get("$TOT"))
        throw InputError(at(where, "TEXT", textBegin) + "$TOT '" + kw.trimmed("$TOT") +
                         "' is not a number of events");
    ds.events = tot ? static_cast<size_t>(*tot) : 0;
    locateData(ds, file, h, kw, tot.has_value());
    checkAnalysis(ds, file, h, kw);

    for (const char* key : {"$SPILLOVER", "SPILL", "$COMP", "SPILLOVER"}) {
        const std::string* v = kw.get(key);
        if (!v) continue;
        auto s = parseSpillover(key, *v, ds.parameters, ds.warnings);
        if (s && !ds.spillover) ds.spillover = std::move(s);
    }

    if (auto next = parseUnsigned(kw.trimmed("$NEXTDATA")); next && *next > 0) {
        if (saturatingAdd(start, *next) >= file.size())
            ds.warnings.push_back("$NEXTDATA " + std::to_string(*next) +
                                  " points outside the file; later data sets are ignored");
        else
            ds.next = start + *next;
    }
    return ds;
}

std::vector<Dataset> parseDatasets(std::span<const uint8_t> file, const std::string& where) {
    std::vector<Dataset> sets;
    sets.push_back(parseDataset(file, 0, where));
    while (sets.back().next != 0 && sets.size() < kMaxDatasets) {
        const uint64_t next = sets.back().next;
        bool repeated = false;
        for (const auto& s : sets) repeated = repeated || s.start == next;
        if (repeated) {
            sets.back().warnings.push_back("$NEXTDATA loops back to an earlier data set; stopped");
            break;
        }
        try {
            sets.push_back(parseDataset(file, next, where));
        } catch (const InputError& e) {
            sets.back().warnings.push_back(std::string("the next data set is unreadable: ") +
                                           e.what());
            break;
        }
    }
    return sets;
}

std::optional<Spillover> parseSpillover(const std::string& key, const std::string& value,
                                        const std::vector<Parameter>& parameters,
                                        std::vector<std::string>& warnings) {
    std::vector<std::string> tokens;
    {
        std::string token;
        for (char c : value + ",") {
            if (c == ',') {
                tokens.push_back(trim(token));
                token.clear();
            } else {
                token.push_back(c);
            }
        }
    }
    auto reject = [&](const std::string& why) -> std::optional<Spillover> {
        warnings.push_back(key + ": " + why + "; the matrix is ignored");
        return std::nullopt;
    };
    auto n64 = parseUnsigned(tokens.empty() ? std::string() : tokens[0]);
    if (!n64 || *n64 == 0 || *n64 > 4096) return reject("the channel count is unreadable");
    const size_t n = static_cast<size_t>(*n64);
    std::vector<std::string> names;
    size_t first = 1;
    if (tokens.size() == 1 + n + n * n) {
        names.assign(tokens.begin() + 1, tokens.begin() + 1 + static_cast<long>(n));
        first = 1 + n;
    } else if (tokens.size() == 1 + n * n && n <= parameters.size()) {
        for (size_t i = 0; i < n; ++i) names.push_back(std::to_string(i + 1));
    } else {
        return reject("declares " + std::to_string(n) + " channels but holds " +
                      std::to_string(tokens.size() - 1) + " entries instead of " +
                      std::to_string(n) + " names and " + std::to_string(n * n) + " values");
    }
    Spillover s;
    for (const std::string& name : names) {
        int found = -1;
        for (size_t j = 0; j < parameters.size() && found < 0; ++j)
            if (parameters[j].name == name) found = static_cast<int>(j);
        if (found < 0)
            if (auto idx = parseUnsigned(name); idx && *idx >= 1 && *idx <= parameters.size())
                found = static_cast<int>(*idx - 1);
        for (size_t j = 0; j < parameters.size() && found < 0; ++j)
            if (upper(parameters[j].name) == upper(name) ||
                (!parameters[j].marker.empty() && upper(parameters[j].marker) == upper(name)))
                found = static_cast<int>(j);
        if (found < 0)
            warnings.push_back(key + ": channel '" + name +
                               "' is not a parameter of this data set");
        s.channels.push_back(found >= 0 ? parameters[static_cast<size_t>(found)].name : name);
    }
    s.matrix = Matrix(n, n);
    for (size_t i = 0; i < n * n; ++i) {
        auto v = parseDouble(tokens[first + i]);
        if (!v) return reject("value '" + tokens[first + i] + "' is not a number");
        s.matrix.values[i] = static_cast<float>(*v);
    }
    return s;
}

Channel channelOf(const Parameter& p, bool raw) {
    Channel c{p.name, p.marker, p.range, p.bits};
    if (!raw && !(p.type == 'I' && p.logDecades > 0)) c.gain = p.gain;
    c.timestep = p.timestep;
    c.integerStored = p.type == 'I' && !(p.logDecades > 0 && !raw);
    return c;
}

}  // namespace sepal::io::fcs
