#pragma once
// The insertion step that every exact top-k list of the project shares: a short ascending
// buffer, the largest key falling out when it is full.

#include <cstddef>
#include <cstdint>

namespace sepal {

/// Inserts (key, id) into the ascending buffer keys/ids of `filled` entries and capacity k (the
/// last entry falls out when the buffer is full; callers skip keys not below it). Equal keys stay
/// behind those inserted before them.
template <class Key>
inline void insertSorted(Key key, uint32_t id, size_t k, size_t& filled, Key* keys, uint32_t* ids) {
    size_t at = filled < k ? filled++ : k - 1;
    while (at > 0 && key < keys[at - 1]) {
        keys[at] = keys[at - 1];
        ids[at] = ids[at - 1];
        --at;
    }
    keys[at] = key;
    ids[at] = id;
}

}  // namespace sepal
