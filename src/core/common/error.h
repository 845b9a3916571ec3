#pragma once
// Errors that reach the user: each says what went wrong, where, and what to do.

#include <stdexcept>
#include <string>

namespace sepal {

/// An error caused by input (a file, a parameter, a value) that the user can fix; never a bug.
class InputError : public std::runtime_error {
  public:
    /// message: what, where (file, segment, byte offset, line, column) and what to do.
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace sepal
