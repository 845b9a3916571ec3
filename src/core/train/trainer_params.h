#pragma once
// Trainer parameters between JSON and their structs. Each trainer lists its fields once (a
// function called with a visitor); ParamReader fills a struct from JSON for makeTrainer and
// ParamWriter turns the struct's defaults into the JSON the registry shows.

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/common/error.h"

namespace sepal {

/// "a", "a or b", "a, b or c": names as a message offers them.
std::string joinAlternatives(const std::vector<std::string>& names);

/// Names of an enumerated parameter's values; the first name of each value is the one written,
/// later ones are accepted aliases.
template <typename E>
using ParamChoices = std::vector<std::pair<std::string, E>>;

/// Reads a JSON object into fields: absent keys keep the field's value; ill-typed values,
/// negative unsigned ones and (at finish) unknown keys are InputErrors naming trainer and key.
class ParamReader {
  public:
    /// `params` is null (all defaults) or an object; throws InputError otherwise.
    ParamReader(std::string trainer, const nlohmann::json& params);

    /// Reads a number or string field.
    template <typename T>
    void operator()(const char* key, T& field) {
        const nlohmann::json* value = find(key);
        if (!value) return;
        try {
            if constexpr (std::is_unsigned_v<T>) {
                if (value->is_number_integer() && value->get<long long>() < 0) throw InputError("");
            }
            field = value->get<T>();
        } catch (const std::exception&) {
            throw InputError("trainer \"" + m_trainer + "\": parameter \"" + key +
                             "\" has the wrong type or sign: " + value->dump());
        }
    }

    /// Reads an enumerated field from one of its names.
    template <typename E>
    void choice(const char* key, E& field, const ParamChoices<E>& choices) {
        const nlohmann::json* value = find(key);
        if (!value) return;
        const std::string text = value->is_string() ? value->get<std::string>() : value->dump();
        for (const auto& [name, e] : choices)
            if (name == text) {
                field = e;
                return;
            }
        throw InputError("trainer \"" + m_trainer + "\": parameter \"" + key + "\" is \"" + text +
                         "\": use " + choiceNames(choices));
    }

    /// Throws InputError for a key that no field took, listing the keys the trainer knows.
    void finish() const;

  private:
    // The value of `key`, or null when absent; remembers the key as known.
    const nlohmann::json* find(const char* key);

    template <typename E>
    static std::string choiceNames(const ParamChoices<E>& choices) {
        std::vector<std::string> names;
        std::vector<E> seen;
        for (const auto& [name, e] : choices) {
            bool repeated = false;
            for (const E& s : seen) repeated = repeated || s == e;
            if (!repeated) names.push_back(name), seen.push_back(e);
        }
        return joinAlternatives(names);
    }

    std::string m_trainer;
    const nlohmann::json& m_params;
    std::set<std::string> m_known;
};

/// Writes fields into a JSON object (a trainer's defaults).
class ParamWriter {
  public:
    /// Writes a number or string field.
    template <typename T>
    void operator()(const char* key, const T& field) {
        m_json[key] = field;
    }
    /// Writes an enumerated field by its first name.
    template <typename E>
    void choice(const char* key, const E& field, const ParamChoices<E>& choices) {
        for (const auto& [name, e] : choices)
            if (e == field) {
                m_json[key] = name;
                return;
            }
    }
    /// The object written so far.
    const nlohmann::json& json() const { return m_json; }

  private:
    nlohmann::json m_json = nlohmann::json::object();
};

}  // namespace sepal
