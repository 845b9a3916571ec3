#pragma once
// Memory sizes in messages, and the neighbour caches' limit from the environment (the CPU's
// NeighbourCache and the device's share SEPAL_NEIGHBOUR_CACHE_MB).

#include <cstddef>
#include <optional>
#include <string>

namespace sepal {

/// "2.1 GB": bytes in decimal gigabytes with one decimal, for messages.
std::string gigabytes(size_t bytes);

/// SEPAL_NEIGHBOUR_CACHE_MB in bytes when it is set (0: the caches are off, for comparisons);
/// empty when it is not.
std::optional<size_t> neighbourCacheLimitFromEnvironment();

}  // namespace sepal
