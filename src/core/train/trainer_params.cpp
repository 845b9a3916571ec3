#include "core/train/trainer_params.h"

namespace sepal {

std::string joinAlternatives(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
        out += names[i];
    }
    return out;
}

ParamReader::ParamReader(std::string trainer, const nlohmann::json& params)
    : m_trainer(std::move(trainer)), m_params(params) {
    if (!params.is_null() && !params.is_object())
        throw InputError("parameters of trainer \"" + m_trainer + "\" must be a JSON object, not " +
                         params.dump());
}

const nlohmann::json* ParamReader::find(const char* key) {
    m_known.insert(key);
    if (m_params.is_null()) return nullptr;
    const auto it = m_params.find(key);
    return it == m_params.end() ? nullptr : &*it;
}

void ParamReader::finish() const {
    if (m_params.is_null()) return;
    for (const auto& [key, value] : m_params.items()) {
        if (m_known.count(key)) continue;
        std::string known;
        for (const auto& k : m_known) known += (known.empty() ? "" : ", ") + k;
        throw InputError("trainer \"" + m_trainer + "\" has no parameter \"" + key +
                         "\" (it knows: " + known + ")");
    }
}

}  // namespace sepal
