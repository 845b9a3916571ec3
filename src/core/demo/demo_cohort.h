#pragma once
// A generated study: patients sampled under each of several conditions, the demo's blood with
// the variation of real cohorts (each patient's own mix of populations, each sample's noise) and
// known effects planted in the conditions after the first, so that a comparison of conditions
// can be checked against the truth.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/demo/demo_data.h"

namespace sepal::demo {

/// The shape of the study.
struct CohortSpec {
    size_t patients = 3;                                    ///< each sampled once per condition
    std::vector<std::string> conditions{"unstim", "stim"};  ///< the first is the reference
    size_t events = 100000;                                 ///< cells per sample
    uint64_t seed = 1;                                      ///< the same cohort for the same seed
    /// Batches the study was measured in: patients are spread over them (all of a patient's
    /// samples in one), each batch has its own sensitivity per marker and one sample of a
    /// reference donor (the anchors of an alignment). 1: one batch, no reference, no effect.
    size_t batches = 1;
    /// With batches: each population's own factor per marker in each batch on top of the
    /// batch's (log-normal, sd 0.3), as where staining or fixation differs by cell type: a batch
    /// effect that one map per marker cannot remove.
    bool populationBatchEffects = false;
};

/// An effect of the conditions after the first, the same in every patient.
struct PlantedEffect {
    std::string population;  ///< the demo population it acts on
    std::string marker;      ///< "" for a change of abundance, else the state marker shifted
    double effect = 0;       ///< abundance: factor on the share; state: shift in arcsinh units
};

/// The effects planted in a cohort: two populations change in abundance (one up, one down, so
/// the others keep their proportions) and two state markers shift in one population each.
std::vector<PlantedEffect> plantedEffects();

/// One sample of the cohort.
struct CohortSample {
    std::string name;         ///< "P1_unstim": the file is name + ".fcs"
    std::string patient;      ///< "P1"
    std::string condition;    ///< one of the spec's conditions
    uint64_t seed = 0;        ///< the demo generator's seed for its cells
    DemoVariation variation;  ///< the patient's and sample's variation and the planted effects
    std::string batch;        ///< "b1", "b2"... ("" when the cohort has one batch)
    bool reference = false;   ///< the reference donor's sample measured in its batch
    /// Marker -> factor on its measured values in this sample's batch (empty: none).
    std::map<std::string, double> batchFactor;
    /// (population, marker) -> a further factor in this sample's batch (empty: none).
    std::map<std::pair<std::string, std::string>, double> populationBatchFactor;
};

/// The samples of the cohort, patient by patient, each patient's conditions in the spec's order,
/// then the reference donor's sample of each batch ("Ref_b1", of the first condition, without
/// the planted effects). The patients' cells do not depend on the number of batches, only their
/// batch's factors do. Throws InputError for fewer than two conditions or no patients, or more
/// batches than patients.
std::vector<CohortSample> cohortSamples(const CohortSpec& spec);

/// The cells of one sample of the cohort: the demo's blood with its variation (and state
/// markers), every marker channel multiplied by its batch's factor (and its population's).
io::Table cohortTable(const CohortSample& sample, size_t events);

}  // namespace sepal::demo
