#include "core/pipeline/sample_filter.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/common/text.h"

namespace sepal {

std::string SampleFilter::text() const {
    if (all()) return "";
    std::string list;
    for (const auto& v : values) list += (list.empty() ? "" : ",") + v;
    return column + (exclude ? "!=" : "=") + list;
}

SampleFilter parseSampleFilter(const std::string& text, const std::string& what) {
    SampleFilter f;
    if (trimmed(text).empty()) return f;
    const size_t equals = text.find('=');
    f.exclude = equals != std::string::npos && equals > 0 && text[equals - 1] == '!';
    const size_t nameEnd = f.exclude ? equals - 1 : equals;
    if (equals == std::string::npos || nameEnd == 0 || equals + 1 == text.size())
        throw InputError(what + " \"" + text +
                         "\": give COLUMN=VALUE (the samples whose COLUMN is VALUE; several "
                         "values joined by commas) or COLUMN!=VALUE (all but those), such as "
                         "type=control");
    f.column = trimmed(text.substr(0, nameEnd));
    const std::string list = text.substr(equals + 1);
    for (size_t start = 0;;) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string value = trimmed(list.substr(start, comma - start));
        if (value.empty())
            throw InputError(what + " \"" + text + "\": an empty value; join values by commas");
        f.values.push_back(value);
        if (comma == list.size()) break;
        start = comma + 1;
    }
    return f;
}

std::vector<bool> chosenSamples(const SampleFilter& filter, const SampleMetadata& metadata,
                                const std::vector<std::string>& paths, const std::string& what) {
    if (filter.all()) return std::vector<bool>(paths.size(), true);
    const size_t column = metadata.columnIndex(filter.column, what + " " + filter.text());
    std::vector<std::string> held;
    for (const auto& p : paths) held.push_back(metadata.valueOf(p, column));
    for (const auto& v : filter.values)
        if (std::find(held.begin(), held.end(), v) == held.end()) {
            std::vector<std::string> distinct;
            for (const auto& h : held)
                if (!h.empty() && std::find(distinct.begin(), distinct.end(), h) == distinct.end())
                    distinct.push_back(h);
            throw InputError(what + " " + filter.text() + ": no sample has " + filter.column +
                             " \"" + v + "\" (theirs: " + commaJoined(distinct) + ")");
        }
    std::vector<bool> chosen;
    for (const auto& h : held) {
        const bool listed =
            std::find(filter.values.begin(), filter.values.end(), h) != filter.values.end();
        chosen.push_back(listed != filter.exclude);
    }
    return chosen;
}

}  // namespace sepal
