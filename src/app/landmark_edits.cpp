// The document's landmark edits: drags, adding, removing, locking and resetting landmarks.
#include <algorithm>

#include "app/document.h"
#include "app/initial_model.h"
#include "core/model/landmark_edit.h"
#include "core/train/landmark_graph.h"

namespace sepal::app {

namespace {
// A model keeps this many landmarks at least (EmbedSOM's smallest k).
constexpr size_t kMinLandmarks = 4;
// Landmarks whose 2D positions place a new one in data space.
constexpr size_t kFitNeighbours = 3;
}  // namespace

void Document::beginLandmarkDrag() {
    m_dragBefore = std::make_unique<LandmarkModel>(m_state.model);
}

void Document::dragLandmarks(const std::vector<size_t>& indices, const std::vector<float>& xy) {
    for (size_t i = 0; i < indices.size(); ++i) {
        size_t l = indices[i];
        if (l >= m_state.model.count()) continue;
        m_state.model.low[2 * l] = xy[2 * i];
        m_state.model.low[2 * l + 1] = xy[2 * i + 1];
    }
    ++m_state.model.lowVersion;
}

void Document::endLandmarkDrag(const std::string& label) {
    if (!m_dragBefore) return;
    LandmarkModel before = std::move(*m_dragBefore);
    m_dragBefore.reset();
    recordModelEdit(std::move(before), label);
}

void Document::addLandmark(float x, float y) {
    if (m_state.model.count() == 0) return;
    LandmarkModel next = m_state.model;
    std::vector<float> high(next.dim);
    fitHighFromLow(next, x, y, kFitNeighbours, high.data());
    size_t id = next.add(high.data(), x, y);
    if (!next.edges.empty()) buildLandmarkGraph(next, size_t(std::max(1, m_state.training.graphK)));
    replaceModel(next, "Add landmark " + std::to_string(id));
}

void Document::removeLandmarks(std::vector<size_t> indices) {
    std::sort(indices.rbegin(), indices.rend());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    LandmarkModel next = m_state.model;
    size_t removed = 0;
    for (size_t l : indices)
        if (l < next.count() && next.count() > kMinLandmarks) next.remove(l), ++removed;
    if (removed == 0) {
        m_log.add(LogEntry::Warning, "nothing removed (a model keeps at least 4 landmarks)");
        return;
    }
    const std::string label = removed == 1 ? "Remove landmark " + std::to_string(indices.front())
                                           : "Remove " + std::to_string(removed) + " landmarks";
    // k must not exceed the landmark count; lowering it is part of the same undo step.
    EmbedParams params = m_state.embed;
    if (params.k > int(next.count())) {
        params.k = int(next.count());
        m_log.add(LogEntry::Warning,
                  "k lowered to the landmark count, " + std::to_string(params.k));
    }
    execute(std::make_unique<ModelCommand>(ModelSnapshot{m_state.model, m_state.embed},
                                           ModelSnapshot{std::move(next), params}, label));
    seal();
}

void Document::setLocked(const std::vector<size_t>& indices, bool locked) {
    LandmarkModel next = m_state.model;
    for (size_t l : indices)
        if (l < next.count()) sepal::setLocked(next, l, locked ? kLockBoth : 0);
    replaceModel(next, locked ? "Lock landmarks" : "Unlock landmarks");
}

void Document::resetModel() {
    replaceModel(startModel(), "Reset model");
    m_untrained = true;
}

}  // namespace sepal::app
