#pragma once
// FNV-1a: a stable 64-bit hash of bytes, the same on every run and platform (box plots' jitter,
// the digests apply stamps its outputs with). Not for security.

#include <cstdint>
#include <string_view>

namespace sepal {

/// FNV-1a's starting value.
inline constexpr uint64_t kFnvOffset = 1469598103934665603ull;

/// FNV-1a of `bytes`, continuing from `h` (kFnvOffset to start; earlier bytes' digest to go on).
inline uint64_t fnv1a(std::string_view bytes, uint64_t h = kFnvOffset) {
    for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
    return h;
}

}  // namespace sepal
