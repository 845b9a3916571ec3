#include "cli/study_options.h"

#include <CLI/CLI.hpp>

namespace sepal::cli {

void addStudyOptions(CLI::App* cmd, StudyOptions& o, bool required) {
    auto* metadata = cmd->add_option("--metadata", o.metadata,
                                     "sample metadata CSV: a first column naming each sample "
                                     "(path, file name or name without extension), then columns "
                                     "such as condition, patient");
    auto* design = cmd->add_option("--design", o.design,
                                   "metadata columns joined by +, for example \"condition + "
                                   "patient\" (numeric columns are covariates, others factors)");
    auto* contrast = cmd->add_option("--contrast", o.contrast,
                                     "what to compare: COLUMN:LEVEL-LEVEL (condition:stim-unstim), "
                                     "COLUMN:LEVEL against the reference level, or a covariate's "
                                     "name");
    if (required) {
        metadata->required();
        design->required();
        contrast->required();
    } else {
        // The metadata alone (apply): its batch column is checked for populations of one batch.
        design->needs(metadata)->needs(contrast);
        contrast->needs(metadata)->needs(design);
    }
    cmd->add_option("--samples", o.samples,
                    "COLUMN=VALUE[,VALUE] or COLUMN!=VALUE: compare only the samples whose "
                    "metadata column has (or, with !=, has not) one of the values, such as "
                    "type!=reference; every sample by default")
        ->needs(contrast);
    cmd->add_option("--reference", o.references,
                    "COLUMN:LEVEL, a factor's reference level (default: its first level in "
                    "sorted order, as R)");
    cmd->add_option("--block", o.block,
                    "a metadata column whose groups (patients) share a correlation in the "
                    "differential state test; the box plots join each group's samples");
    cmd->add_option("--state-markers", o.stateMarkers,
                    "the markers to test for differential state (default: those the catalogue "
                    "calls state markers)")
        ->delimiter(',');
    cmd->add_option("--method", o.method,
                    "differential abundance: edgeR (a negative binomial GLM, likelihood ratio "
                    "test) or GLMM (a binomial GLMM with a random intercept per sample, and per "
                    "--block group: Wald z)")
        ->capture_default_str();
    cmd->add_option("--min-cells", o.minCells,
                    "a population is tested when it has this many cells in --min-samples samples")
        ->capture_default_str();
    cmd->add_option("--min-samples", o.minSamples, "0: half the samples")->capture_default_str();
}

StudyRunner& studyRunner() {
    static StudyRunner runner = nullptr;
    return runner;
}

}  // namespace sepal::cli
