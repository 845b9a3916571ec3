#include "app/training.h"

namespace sepal::app {

std::vector<std::string> availableTrainers() { return {}; }

std::unique_ptr<Trainer> createTrainer(const TrainingSettings& settings, const LandmarkModel&,
                                       size_t, std::string* why) {
    if (why) *why = "trainer '" + settings.trainer + "' is not part of this build yet";
    return nullptr;
}

}  // namespace sepal::app
