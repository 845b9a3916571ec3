// Workspace services: populations made from the landmarks, as sepal-cli embed --metaclusters
// makes them, and the populations a model file carries.

#include <string>

#include "app/populations.h"
#include "app/workspace.h"
#include "core/cluster/metaclusters.h"
#include "core/common/error.h"
#include "core/knn/nearest_search.h"

namespace sepal::app {

namespace {

/// Each used column's marker (else its channel name), from the first sample: what names are
/// made of, as sepal-cli's markerNames.
std::vector<std::string> markersOf(const Dataset& data) {
    std::vector<std::string> out;
    for (const auto& column : data.columns) {
        const io::Table& t = data.tables.front();
        const int c = t.findChannel(column);
        out.push_back(c >= 0 && !t.channels[size_t(c)].marker.empty() ? t.channels[size_t(c)].marker
                                                                      : column);
    }
    return out;
}

}  // namespace

void Workspace::populationsFromLandmarks(size_t k) {
    const State& st = m_document.state();
    try {
        if (st.data.events() == 0 || st.model.count() == 0)
            throw InputError("open data and train landmarks first");
        if (k > 250) throw InputError("at most 250 populations; ask for fewer");
        MetaclusterSettings settings;
        settings.k = k;
        settings.seed = st.training.seed;
        const auto ofLandmark = metaclusterLandmarks(st.model, settings);
        auto search = makeCpuNearestSearch();
        const auto codes = groupsOfPoints(st.data.points, st.model, ofLandmark, *search);
        const auto names = nameGroups(st.data.points, codes, k, markersOf(st.data));
        m_document.replacePopulations(populationsFromCodes(names, codes),
                                      "Populations from landmarks");
        log(LogEntry::Info, std::to_string(k) + " populations from the landmarks");
    } catch (const std::exception& e) {
        log(LogEntry::Error, std::string("populations from landmarks: ") + e.what());
    }
}

void Workspace::adoptModelPopulations(const std::vector<ModelPopulation>& populations,
                                      const std::string& source) {
    const State& st = m_document.state();
    if (populations.empty() || st.data.events() == 0) return;
    const auto ofLandmark = groupsOfLandmarks(populations, st.model.count());
    auto search = makeCpuNearestSearch();
    const auto codes = groupsOfPoints(st.data.points, st.model, ofLandmark, *search);
    m_document.replacePopulations(populationsFromCodes(populationNames(populations), codes),
                                  "Populations of " + source);
}

}  // namespace sepal::app
