#pragma once
// Completing a registry entry from a parameter struct: its defaults and its factory come from
// the struct's starting values and its field list (trainer_params.h), so a trainer added with
// registerTrainer lists its parameters once, as the built-in ones do.

#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/knn/nearest_search.h"
#include "core/train/trainer_params.h"
#include "core/train/trainer_registry.h"

namespace sepal {

/// `info` with `defaults` (the fields of `start` as written) and `make` (reads JSON over `start`
/// and calls `build(params, search)`, which returns a new Trainer*). `fields(visitor, params)`
/// calls the visitor once per field: `v("key", p.key)`, or `v.choice(...)` for enumerations.
template <typename Params, typename Fields, typename Build>
TrainerInfo trainerEntry(TrainerInfo info, const Params& start, Fields fields, Build build) {
    ParamWriter writer;
    Params defaults = start;
    fields(writer, defaults);
    info.defaults = writer.json();
    info.make = [name = info.name, start, fields, build](const nlohmann::json& json,
                                                         NearestSearch& search) {
        ParamReader reader(name, json);
        Params p = start;
        fields(reader, p);
        reader.finish();
        return std::unique_ptr<Trainer>(build(p, search));
    };
    return info;
}

}  // namespace sepal
