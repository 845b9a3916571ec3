#pragma once
// Numbers written as text that reads back as the same double: what files that others read
// (Gating-ML, FlowJo workspaces, FCS keywords that scale values) must hold.

#include <string>

namespace sepal {

/// The shortest decimal text (6 to 17 significant digits) that strtod reads back as `value`.
std::string exactDecimal(double value);

/// The shortest decimal text that reads back as the float `value` (a float matrix's coefficient).
std::string shortestFloat(float value);

}  // namespace sepal
