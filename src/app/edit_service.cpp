// Edits go to the document; the few that must stop training first say so.
#include "app/edit_service.h"

namespace sepal::app {

bool EditService::undo() {
    m_scheduler.pauseTraining();
    return m_document.undo();
}

bool EditService::redo() {
    m_scheduler.pauseTraining();
    return m_document.redo();
}

void EditService::setColour(const ColourSettings& settings, const std::string& mergeKey) {
    m_document.setColour(settings, mergeKey);
}

void EditService::setView(const ViewSettings& settings, const std::string& mergeKey) {
    m_document.setView(settings, mergeKey);
}

void EditService::setEmbed(const EmbedParams& params, const std::string& mergeKey) {
    m_document.setEmbed(params, mergeKey);
}

void EditService::replaceModel(const LandmarkModel& after, const std::string& label) {
    m_document.replaceModel(after, label);
}

void EditService::beginLandmarkDrag() {
    m_document.beginLandmarkDrag();
}

void EditService::dragLandmarks(const std::vector<size_t>& indices, const std::vector<float>& xy) {
    m_document.dragLandmarks(indices, xy);
}

void EditService::endLandmarkDrag(const std::string& label) {
    m_document.endLandmarkDrag(label);
}

void EditService::addLandmark(float x, float y) {
    m_document.addLandmark(x, y);
}

void EditService::removeLandmarks(std::vector<size_t> indices) {
    m_document.removeLandmarks(std::move(indices));
}

void EditService::setLocked(const std::vector<size_t>& indices, bool locked) {
    m_document.setLocked(indices, locked);
}

void EditService::resetModel() {
    m_scheduler.pauseTraining();
    m_document.resetModel();
}

}  // namespace sepal::app
