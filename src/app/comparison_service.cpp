#include "app/comparison_service.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/common/error.h"

#ifdef SEPAL_HAVE_STATS
#include "core/stats/study_files.h"
#include "core/stats/tally_tables.h"
#endif

namespace sepal::app {
namespace {

/// The design's formula: the column, for edgeR the block as a factor (abundance compared within
/// patients; the GLMM takes the block as a random intercept instead), then the covariate.
std::string formulaOf(const ComparisonSettings& s) {
    return s.column + (s.block.empty() || s.method == "GLMM" ? "" : " + " + s.block) +
           (s.covariate.empty() ? "" : " + " + s.covariate);
}

#ifdef SEPAL_HAVE_STATS
/// The request the settings make: the column's level against the reference.
stats::StudyRequest requestOf(const ComparisonSettings& s,
                              const std::vector<std::string>& stateMarkers) {
    stats::StudyRequest r;
    r.samples = parseSampleFilter(s.samples, "the samples compared");
    r.stateMarkers = stateMarkers;
    r.formula = formulaOf(s);
    r.contrast = s.column + ":" + s.level + "-" + s.reference;
    // The window's "against" level is the design's reference too, so that design.csv's columns
    // read as the comparison does (conditionstim against the unstim baseline).
    if (!s.reference.empty()) r.references[s.column] = s.reference;
    r.block = s.block;
    r.method = s.method;
    return r;
}

/// The tables of the open data, as the app exports them (populations.csv, sample_medians.csv).
struct Tables {
    stats::AbundanceTable counts;
    stats::SampleMedianTable medians;
};

Comparison compare(const Tables& tables, const SampleMetadata& metadata,
                   const ComparisonSettings& settings, double tallyMs) {
    const auto start = std::chrono::steady_clock::now();
    const stats::StudyResult result = stats::compareConditions(
        tables.counts, metadata, requestOf(settings, tables.medians.markers),
        tables.medians.markers.empty() ? nullptr : &tables.medians);
    Comparison c;
    c.settings = settings;
    c.contrastText = result.design.contrastText;
    c.design = requestOf(settings, {}).formula;
    c.samples = result.design.samples;
    c.groupOf = result.design.groupOf;
    const auto blockColumn =
        std::find(metadata.columns.begin(), metadata.columns.end(), settings.block);
    for (const auto& s : c.samples)
        c.pairOf.push_back(
            blockColumn == metadata.columns.end()
                ? std::string()
                : metadata.valueOf(s, size_t(blockColumn - metadata.columns.begin())));
    const stats::AbundanceTable counts = stats::keepSamples(tables.counts, c.samples);
    const Eigen::RowVectorXd totals = counts.cells.colwise().sum();
    for (const auto& a : result.abundance) {
        c.abundance.push_back({a.population, a.tested, a.logFC, a.pValue, a.pAdjusted});
        const auto row = Eigen::Index(
            std::find(counts.populations.begin(), counts.populations.end(), a.population) -
            counts.populations.begin());
        std::vector<double> percent;
        for (Eigen::Index s = 0; s < totals.size(); ++s)
            percent.push_back(totals(s) > 0 ? 100.0 * counts.cells(row, s) / totals(s) : NAN);
        c.percent.push_back(std::move(percent));
    }
    for (const auto& s : result.state)
        c.state.push_back({s.population, s.marker, s.tested, s.logFC, s.t, s.pValue, s.pAdjusted});
    // Sorted as the tables are: by adjusted p, the untested last.
    std::vector<size_t> order(c.abundance.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto byP = [](const auto& a, const auto& b) {
        if (a.tested != b.tested) return a.tested;
        return a.tested && std::tie(a.pAdjusted, a.pValue) < std::tie(b.pAdjusted, b.pValue);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return byP(c.abundance[a], c.abundance[b]); });
    std::vector<AbundanceRow> rows;
    std::vector<std::vector<double>> percent;
    for (const size_t i : order) rows.push_back(c.abundance[i]), percent.push_back(c.percent[i]);
    c.abundance = std::move(rows);
    c.percent = std::move(percent);
    std::stable_sort(c.state.begin(), c.state.end(), byP);
    c.milliseconds =
        tallyMs +
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    c.valid = true;
    return c;
}
#endif

}  // namespace

ComparisonService::~ComparisonService() {
    if (m_task.valid()) m_task.wait();
}

bool ComparisonService::available() {
#ifdef SEPAL_HAVE_STATS
    return true;
#else
    return false;
#endif
}

void ComparisonService::choose(const ComparisonSettings& settings) {
    m_settings = settings;
    m_error.clear();
    m_wanted = true;
}

std::string ComparisonService::command() const {
    const ComparisonSettings& s = m_settings;
    if (s.column.empty()) return "";
    std::string markers;
    for (const auto& m : m_populations.stateColumnNames())
        markers += (markers.empty() ? "" : ",") + m;
    // The medians only with state markers to test: without them stats refuses the medians, as
    // the window then tests abundance alone.
    std::string cmd =
        "sepal-cli stats --counts populations.csv " +
        std::string(markers.empty() ? "" : "--medians sample_medians.csv ") + "--metadata " +
        (state().metadata.source.empty() ? std::string("samples.csv") : state().metadata.source) +
        " --design \"" + formulaOf(s) + "\" --contrast " + s.column + ":" + s.level + "-" +
        s.reference;
    if (!s.reference.empty()) cmd += " --reference " + s.column + ":" + s.reference;
    if (!s.block.empty()) cmd += " --block " + s.block;
    if (!s.samples.empty()) cmd += " --samples '" + s.samples + "'";  // ! and spaces kept
    if (s.method != "edgeR") cmd += " --method " + s.method;
    if (!markers.empty()) cmd += " --state-markers " + markers;
    return cmd + " --out-dir stats";
}

std::vector<std::string> ComparisonService::exportTables(const std::string& folder) const {
#ifdef SEPAL_HAVE_STATS
    const State& st = state();
    if (m_settings.column.empty())
        throw InputError("choose the conditions to compare first (Compare window)");
    if (st.populations.groups.empty())
        throw InputError("no populations to compare: make some (From landmarks, or the lasso)");
    std::vector<std::string> inputs;
    for (const auto& sample : st.data.samples) inputs.push_back(sample.path);
    inputs.push_back(st.metadata.source);
    const stats::StudyFiles files = stats::studyFilesIn(folder, inputs);
    // The same tally, tables and tests as the window's, and as sepal-cli stats on the exports.
    const PopulationTally tally = m_populations.stateTally();
    const stats::AbundanceTable counts = stats::abundanceOf(tally);
    const stats::SampleMedianTable medians = stats::sampleMediansOf(tally);
    const bool state = !medians.markers.empty();
    const stats::StudyResult result = stats::compareConditions(
        counts, st.metadata, requestOf(m_settings, medians.markers), state ? &medians : nullptr);
    return stats::writeStudyFiles(files, result, counts, st.metadata, m_settings.block, state);
#else
    (void)folder;
    throw InputError("this build has no statistics (Eigen or Boost.Math were missing)");
#endif
}

void ComparisonService::update() {
    // A finished comparison is taken (or its error said once).
    if (m_task.valid() && m_task.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        try {
            m_current = m_task.get();
            m_error.clear();
            PopulationChange change;
            change.title = m_current.settings.level + " - " + m_current.settings.reference;
            for (const auto& r : m_current.abundance) {
                change.populations.push_back(r.population);
                change.logFC.push_back(r.tested ? float(r.logFC) : NAN);
            }
            m_scheduler.setPopulationChange(std::move(change));
        } catch (const std::exception& e) {
            // The last result compared other metadata or settings: it is not shown beside the
            // error as if it were this comparison's.
            m_current = Comparison{};
            m_scheduler.setPopulationChange(PopulationChange{});
            m_error = e.what();
        }
    }
#ifdef SEPAL_HAVE_STATS
    const State& st = state();
    const bool wanted = m_wanted || st.colour.mode == ColourMode::Change;
    m_wanted = false;
    if (!wanted || m_settings.column.empty() || st.populations.groups.empty() ||
        st.data.samples.size() < 4)
        return;
    // Compared again when the cells, their populations, the gates, the metadata or the choice
    // change; one comparison at a time (the newest choice follows when it is done).
    const uint64_t key =
        st.version(Part::Data) * 1000003 + st.version(Part::Populations) * 7919 +
        st.version(Part::Gates) * 104729 +
        std::hash<std::string>()(m_settings.column + "\n" + m_settings.level + "\n" +
                                 m_settings.reference + "\n" + m_settings.block + "\n" +
                                 m_settings.method + "\n" + m_settings.samples + "\n" +
                                 m_settings.covariate + "\n" + st.metadata.source) +
        st.metadata.files.size();
    if (key == m_key || m_task.valid()) return;
    m_key = key;
    // The tally reads the state here, on the frame's thread; the tests run on a worker.
    const auto start = std::chrono::steady_clock::now();
    const PopulationTally tally = m_populations.stateTally();
    auto tables =
        std::make_shared<Tables>(Tables{stats::abundanceOf(tally), stats::sampleMediansOf(tally)});
    const double tallyMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    m_task = std::async(std::launch::async,
                        [tables, metadata = st.metadata, settings = m_settings, tallyMs] {
                            return compare(*tables, metadata, settings, tallyMs);
                        });
#endif
}

}  // namespace sepal::app
