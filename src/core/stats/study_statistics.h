#pragma once
// A study's comparison of conditions from its tables: the design from the sample metadata,
// differential abundance of the populations and, given the samples' medians, differential
// state of the state markers; and the tables they are written as (da.csv, ds.csv, design.csv),
// the same from sepal-cli and the app.

#include <map>
#include <string>
#include <vector>

#include "core/pipeline/sample_filter.h"
#include "core/pipeline/sample_metadata.h"
#include "core/stats/abundance_table.h"
#include "core/stats/differential_state.h"
#include "core/stats/edger_da.h"
#include "core/stats/sample_median_table.h"
#include "core/stats/study_design.h"

namespace sepal::stats {

/// What to compare and how.
struct StudyRequest {
    /// The samples compared ("type!=reference"); the others are left out of the design, the
    /// tests and the pictures. By default every sample.
    SampleFilter samples;
    std::string formula;                            ///< "condition + patient"
    std::string contrast;                           ///< "condition:stim-unstim"
    std::map<std::string, std::string> references;  ///< column -> reference level
    std::string block;  ///< metadata column of a blocking factor (patient) for DS; "": none
    std::string method = "edgeR";           ///< differential abundance: edgeR
    std::vector<std::string> stateMarkers;  ///< DS markers; empty: the catalogue's state markers
    size_t minCells = 3;                    ///< a sample counts for a population with this many
    size_t minSamples = 0;                  ///< samples that must count (0: half of them)
};

/// The comparison's results.
struct StudyResult {
    StudyDesign design;                      ///< the design and contrast tested
    std::string method = "edgeR";            ///< how abundance was tested: edgeR or GLMM
    std::vector<AbundanceResult> abundance;  ///< per population, in the counts' order
    std::vector<StateResult> state;         ///< per population and state marker (empty: no medians)
    std::vector<std::string> stateMarkers;  ///< the markers tested for differential state
};

/// Compares the conditions of `request` over the samples of `counts` that request.samples
/// chooses (each found in `metadata`; the cells of no population, "unassigned", are left out);
/// with `medians` (the same samples and populations, per sample) also differential state of
/// the state markers. request.block is the within-patient correlation of the state test and,
/// for the GLMM, a patient random intercept. Throws InputError for a bad request
/// (unknown columns, levels, markers; too few samples; medians of other samples).
StudyResult compareConditions(const AbundanceTable& counts, const SampleMetadata& metadata,
                              const StudyRequest& request,
                              const SampleMedianTable* medians = nullptr);

/// Writes da.csv by adjusted p (untested ones last, NA): population,logFC,logCPM,LR,p_val,p_adj
/// for edgeR, population,logFC,z,p_val,p_adj for the GLMM.
void writeAbundanceTable(const std::string& path, std::vector<AbundanceResult> results,
                         const std::string& method = "edgeR");
/// Writes ds.csv: population,marker,logFC,t,p_val,p_adj by adjusted p (untested last, NA).
void writeStateTable(const std::string& path, std::vector<StateResult> results);
/// Writes design.csv: the sample column then one column per coefficient.
void writeDesignTable(const std::string& path, const StudyDesign& design);

}  // namespace sepal::stats
