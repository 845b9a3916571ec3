#pragma once
// Vectors whose new elements are left for the caller to write: for large buffers that a parallel
// loop fills, whose pages are then first touched (and cleared by the system) on every thread
// instead of zeroed by one thread beforehand.

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace sepal {

/// std::allocator, but construct() without arguments default-initialises (a float is left as
/// it is) instead of value-initialising (a float would be zeroed).
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    UninitialisedAllocator() = default;
    template <class U>
    UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    /// Default-initialises the element at p.
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    /// Constructs the element at p from args.
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

/// Floats that resize() leaves unwritten.
using UnfilledFloats = std::vector<float, UninitialisedAllocator<float>>;

}  // namespace sepal
