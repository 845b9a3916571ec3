#pragma once
// The file of auto's measured CUDA kernel choices (kernel_choice_cache.h), as JSON:
//   {"format": "sepal-cuda-kernel-choices", "version": 1,
//    "devices": {DEVICE: {SHAPE CLASS: {"kernel": "tensor+parts", "points": 262144,
//                                       "timings_ms": [{"kernel": "tensor+split", "ms": 2.31},
//                                                      ...]}}}}
// DEVICE is kernelDeviceKey's text, SHAPE CLASS kernelShapeKey's. Plain C++: tested without a GPU.

#include <map>
#include <optional>
#include <string>

#include "core/embedsom/kernel_choice.h"

namespace sepal {

/// Measured choices by device key, then by shape class key.
using KernelChoices = std::map<std::string, std::map<std::string, KernelChoice>>;

/// The choices in `text`, the file's JSON; throws std::runtime_error saying what is wrong.
KernelChoices parseKernelChoices(const std::string& text);
/// The file's JSON for `choices`.
std::string kernelChoicesJson(const KernelChoices& choices);
/// The choices in the file at `path`: none when there is no file; nothing, with the reason in
/// `why`, when it cannot be read or is not such a file.
std::optional<KernelChoices> readKernelChoiceFile(const std::string& path, std::string& why);
/// Writes `choices` to `path` under a temporary name, then renames it (making its folder when
/// missing); throws InputError when it cannot.
void writeKernelChoiceFile(const std::string& path, const KernelChoices& choices);

}  // namespace sepal
