#include "core/io/json_format.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace sepal::io {

std::string jsonFileFormat(const std::string& path) {
    std::error_code ec;
    if (!path.ends_with(".json") || !std::filesystem::is_regular_file(path, ec)) return "";
    std::ifstream in(path);
    if (!in) return "";
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (!doc.is_object()) return "";
    const auto it = doc.find("format");
    return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace sepal::io
