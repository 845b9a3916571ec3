#pragma once
// Small text helpers the readers of user-written tables share.

#include <string>
#include <vector>

namespace sepal {

/// `s` without the leading and trailing characters of `blanks` (by default white space).
std::string trimmed(const std::string& s, const char* blanks = " \t\r\n");

/// `s` in lower case (ASCII letters).
std::string lowercase(std::string s);

/// The words joined by ", ": "CD3, CD4, CD8".
std::string commaJoined(const std::vector<std::string>& words);

}  // namespace sepal
