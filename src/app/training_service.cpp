#include "app/training_service.h"

#include "app/training.h"

namespace sepal::app {

void TrainingService::setSettings(const TrainingSettings& settings, const std::string& mergeKey) {
    // The scheduler first: it reads the old settings to tell what changed.
    m_scheduler.retune(settings);
    m_document.setTraining(settings, mergeKey);
}

std::vector<std::string> TrainingService::trainerNames() const {
    return availableTrainers();
}

}  // namespace sepal::app
