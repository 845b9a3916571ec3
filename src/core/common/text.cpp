#include "core/common/text.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

namespace sepal {

std::string trimmed(const std::string& s, const char* blanks) {
    const size_t a = s.find_first_not_of(blanks);
    if (a == std::string::npos) return "";
    return s.substr(a, s.find_last_not_of(blanks) - a + 1);
}

std::vector<int> utf8CodePoints(const std::string& text) {
    std::vector<int> out;
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        if (n < 0 || i + size_t(n) >= text.size()) {
            out.push_back('?');
            ++i;
            continue;
        }
        int cp = n == 0 ? c : c & (0x3f >> n);
        for (int k = 1; k <= n; ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3f);
        out.push_back(cp < 32 ? '?' : cp);
        i += size_t(n) + 1;
    }
    return out;
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lowercase(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string lowerExtension(const std::string& path) {
    return lowercase(std::filesystem::path(path).extension().string());
}

std::string commaJoined(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
    return out;
}

namespace {
bool wordBoundary(char c) {
    return c == ' ' || c == '_' || c == '-' || c == '.';
}
}  // namespace

std::vector<std::string> elideApart(const std::vector<std::string>& names, double width,
                                    const std::function<double(const std::string&)>& widthOf,
                                    const std::string& ellipsis) {
    std::vector<std::string> out;
    std::map<std::string, std::vector<size_t>> readAlike;  // shortened text -> names
    for (size_t i = 0; i < names.size(); ++i) {
        out.push_back(elideMiddle(names[i], width, widthOf, ellipsis));
        if (out[i] != names[i]) readAlike[out[i]].push_back(i);
    }
    for (const auto& [text, members] : readAlike) {
        if (members.size() < 2) continue;
        std::vector<std::string> whole;
        for (size_t i : members) whole.push_back(names[i]);
        const size_t start = sharedWordStart(whole);
        if (start == 0) continue;
        for (size_t i : members) {
            const std::string rest = names[i].substr(start);
            out[i] = widthOf(rest) <= width
                         ? rest
                         : elideMiddle(ellipsis + rest, width, widthOf, ellipsis);
        }
    }
    return out;
}

size_t sharedWordStart(const std::vector<std::string>& names) {
    if (names.size() < 2) return 0;
    size_t n = names.front().size();
    for (const auto& name : names) {
        size_t i = 0;
        while (i < n && i < name.size() && name[i] == names.front()[i]) ++i;
        n = i;
    }
    while (n > 0 && !wordBoundary(names.front()[n - 1])) --n;
    return n;
}

size_t sharedWordEnd(const std::vector<std::string>& names) {
    if (names.size() < 2) return 0;
    const std::string& first = names.front();
    size_t n = first.size();
    for (const auto& name : names) {
        size_t i = 0;
        while (i < n && i < name.size() && name[name.size() - 1 - i] == first[first.size() - 1 - i])
            ++i;
        n = i;
    }
    while (n > 0 && !wordBoundary(first[first.size() - n])) --n;
    return n;
}

namespace {
/// A name's words, each with the separators before it ("a_b.c": "a", "_b", ".c").
std::vector<std::string> wordsWithSeparators(const std::string& name) {
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    for (char c : name) {
        if (wordBoundary(c) && inWord) {
            words.push_back(word);
            word.clear();
        }
        word += c;
        inWord = !wordBoundary(c);
    }
    if (!word.empty()) words.push_back(word);
    return words;
}
}  // namespace

std::vector<std::string> distinguishingNames(const std::vector<std::string>& names) {
    if (names.size() < 2) return names;
    std::vector<std::vector<std::string>> words;
    for (const auto& n : names) words.push_back(wordsWithSeparators(n));
    const bool aligned = std::all_of(words.begin(), words.end(), [&](const auto& w) {
        return w.size() == words.front().size();
    });
    std::vector<std::string> out;
    if (aligned) {
        std::vector<bool> differs(words.front().size(), false);
        for (size_t i = 0; i < differs.size(); ++i)
            for (const auto& w : words) differs[i] = differs[i] || w[i] != words.front()[i];
        for (const auto& w : words) {
            std::string kept;
            for (size_t i = 0; i < w.size(); ++i)
                if (differs[i]) kept += w[i];
            // The first word kept without the separators before it.
            const size_t start = kept.find_first_not_of(" _-.");
            if (start == std::string::npos) return names;
            out.push_back(kept.substr(start));
        }
        return out;
    }
    const size_t prefix = sharedWordStart(names), suffix = sharedWordEnd(names);
    for (const auto& n : names) {
        // Never less than the whole name when the shared parts overlap (one name inside another).
        if (prefix + suffix >= n.size()) return names;
        out.push_back(n.substr(prefix, n.size() - prefix - suffix));
    }
    return out;
}

std::string elideMiddle(const std::string& text, double width,
                        const std::function<double(const std::string&)>& widthOf,
                        const std::string& ellipsis) {
    if (widthOf(text) <= width) return text;
    // Whole words first: a name of words keeps its first and last ones whole, dropping words of
    // its middle ("Memory CD8 T ... CD45RAbright", where characters gave "Memory CD...5RAbright"
    // and hid both the type and what tells it from its namesakes). The most words that fit,
    // more of them from the start where two choices keep as many.
    std::vector<std::string> words;
    for (size_t at = 0; at <= text.size();) {
        const size_t space = std::min(text.find(' ', at), text.size());
        if (space > at) words.push_back(text.substr(at, space - at));
        at = space + 1;
    }
    for (size_t kept = words.size() - 1; words.size() >= 3 && kept >= 2; --kept)
        for (size_t head = kept - 1; head >= 1; --head) {
            std::string candidate;
            for (size_t w = 0; w < head; ++w) candidate += words[w] + " ";
            candidate += ellipsis;
            for (size_t w = words.size() - (kept - head); w < words.size(); ++w)
                candidate += " " + words[w];
            if (widthOf(candidate) <= width) return candidate;
        }
    // Character starts (UTF-8 lead bytes), so that a cut never splits one.
    std::vector<size_t> starts;
    for (size_t i = 0; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
    // Characters from both ends in turn while the result fits.
    size_t head = 0, tail = 0;  // characters kept at the start and at the end
    std::string best = ellipsis;
    while (head + tail < starts.size()) {
        const bool fromStart = head <= tail;
        const size_t h = head + fromStart, t = tail + !fromStart;
        const size_t headEnd = h < starts.size() ? starts[h] : text.size();
        const size_t tailStart = t == 0 ? text.size() : starts[starts.size() - t];
        const std::string candidate = text.substr(0, headEnd) + ellipsis + text.substr(tailStart);
        if (widthOf(candidate) > width) break;
        head = h, tail = t, best = candidate;
    }
    return best;
}

}  // namespace sepal
