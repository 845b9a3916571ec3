#include "core/train/trainer_run.h"

#include "core/common/error.h"

namespace sepal {

InitParams startOf(const TrainerInfo& info, size_t rows, size_t cols, size_t count, uint64_t seed) {
    InitParams init;
    init.seed = seed;
    if (info.init == TrainerInit::Grid) {
        init.method = InitMethod::Grid;
        init.rows = rows;
        init.cols = cols;
    } else {
        init.method = InitMethod::Sample;
        init.g = count;
    }
    return init;
}

std::unique_ptr<Trainer> makeBatchTrainer(const TrainerInfo& info, const nlohmann::json& overrides,
                                          uint64_t seed, NearestSearch& search) {
    if (!overrides.is_null() && !overrides.is_object())
        throw InputError("parameters of trainer \"" + info.name + "\" must be a JSON object, not " +
                         overrides.dump());
    nlohmann::json params = info.batch;
    if (overrides.is_object()) params.update(overrides);
    if (!params.contains("seed")) params["seed"] = seed;
    return info.make(params, search);
}

void runToEnd(Trainer& trainer, LandmarkModel& model, const TrainingData& data,
              const RunProgress& progress) {
    double last = -1.0;
    while (trainer.step(model, data)) {
        const double p = trainer.progress();
        if (progress && p >= 0.0 && p - last >= 0.05) progress(p), last = p;
    }
    if (progress) progress(1.0);
}

}  // namespace sepal
