// Fuzz target: the gate readers (Gating-ML, FlowJo workspaces, Sepal's gates JSON) must refuse
// bad input with InputError, never crash; what they accept must evaluate without crashing.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/common/error.h"
#include "core/gate/flowjo_workspace.h"
#include "core/gate/gate_membership.h"
#include "core/gate/gate_tree_json.h"
#include "core/gate/gating_ml.h"

namespace {

// A small table with the channels the compliance files name, some values NaN.
const sepal::io::Table& table() {
    static const sepal::io::Table t = [] {
        sepal::io::Table t;
        for (const char* name :
             {"FSC-H", "SSC-H", "FL1-H", "FL2-H", "FL3-H", "FL4-H", "FL2-A", "Time"})
            t.channels.push_back({name, "", 1024, 32});
        t.values = sepal::Matrix(16, t.channels.size());
        for (size_t i = 0; i < t.values.values.size(); ++i)
            t.values.values[i] = i % 13 == 0 ? NAN : float(int(i * 37 % 1000) - 100);
        return t;
    }();
    return t;
}

void evaluate(const sepal::GateTree& tree) {
    try {
        sepal::evaluateGates(tree, table());
    } catch (const sepal::InputError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        evaluate(sepal::parseGatingMl(text, "fuzz"));
    } catch (const sepal::InputError&) {
    }
    try {
        evaluate(sepal::readFlowJoWorkspace(text, "fuzz").tree);
    } catch (const sepal::InputError&) {
    }
    try {
        const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        if (!j.is_discarded()) evaluate(sepal::gateTreeFromJson(j, "fuzz"));
    } catch (const sepal::InputError&) {
    }
    return 0;
}
