#pragma once
// Outputs never replace inputs: a command that would write over a file it reads refuses first.

#include <string>
#include <vector>

namespace sepal::io {

/// Whether `a` and `b` name one file: std::filesystem::equivalent when both exist (so symlinks
/// and hard links count), otherwise the same absolute, normalised path.
bool sameFile(const std::string& a, const std::string& b);

/// Throws InputError when `output` (what `option` names, e.g. "--out") is the same file as one
/// of `inputs`, so that writing it cannot destroy data still being read, or when `output` is a
/// CSV table whose spillover matrix beside it (spilloverBeside) is one of them. Empty paths are
/// skipped.
void refuseOverwritingInput(const std::string& output, const std::vector<std::string>& inputs,
                            const std::string& option);

/// Throws InputError when one file is among `inputs` twice (symlinks resolved): each file is one
/// sample, and a file given twice would have its cells counted twice.
void refuseRepeatedInputs(const std::vector<std::string>& inputs);

}  // namespace sepal::io
