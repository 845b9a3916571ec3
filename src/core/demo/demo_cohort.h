#pragma once
// A generated study: patients sampled under each of several conditions, the demo's blood with
// the variation of real cohorts (each patient's own mix of populations, each sample's noise) and
// known effects planted in the conditions after the first, so that a comparison of conditions
// can be checked against the truth.

#include <cstdint>
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
};

/// The samples of the cohort, patient by patient, each patient's conditions in the spec's order.
/// Throws InputError for fewer than two conditions or no patients.
std::vector<CohortSample> cohortSamples(const CohortSpec& spec);

}  // namespace sepal::demo
