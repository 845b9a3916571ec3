#include "core/common/number_text.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace sepal {

std::string exactDecimal(double value) {
    char text[40];
    for (int digits = 6; digits <= 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, value);
        if (std::strtod(text, nullptr) == value) break;
    }
    return text;
}

std::string shortestFloat(float value) {
    char buffer[32];
    const auto done = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, done.ptr);
}

}  // namespace sepal
