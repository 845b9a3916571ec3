#include "core/common/text.h"

#include <cctype>

namespace sepal {

std::string trimmed(const std::string& s, const char* blanks) {
    const size_t a = s.find_first_not_of(blanks);
    if (a == std::string::npos) return "";
    return s.substr(a, s.find_last_not_of(blanks) - a + 1);
}

std::string lowercase(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
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

}  // namespace sepal
