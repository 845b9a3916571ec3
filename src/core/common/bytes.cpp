#include "core/common/bytes.h"

#include <cstdio>
#include <cstdlib>

namespace sepal {

std::string gigabytes(size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GB", double(bytes) / 1e9);
    return text;
}

std::optional<size_t> neighbourCacheLimitFromEnvironment() {
    if (const char* mb = std::getenv("SEPAL_NEIGHBOUR_CACHE_MB"); mb && *mb)
        return size_t(std::strtoull(mb, nullptr, 10)) << 20;
    return std::nullopt;
}

}  // namespace sepal
