#include "core/train/trainer_factory.h"

#include "core/common/error.h"
#include "core/train/trainer_params.h"

namespace sepal {

std::unique_ptr<Trainer> makeTrainer(const std::string& name, const nlohmann::json& params,
                                     NearestSearch& search) {
    const TrainerInfo* info = findTrainer(name);
    if (!info)
        throw InputError("unknown trainer \"" + name + "\": use " +
                         joinAlternatives(trainerNames()));
    return info->make(params, search);
}

}  // namespace sepal
