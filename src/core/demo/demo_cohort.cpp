#include "core/demo/demo_cohort.h"

#include <cmath>
#include <random>

#include "core/common/error.h"

namespace sepal::demo {

std::vector<PlantedEffect> plantedEffects() {
    // Up by 6 parts of the demo's 114, down by 4.5: the other populations keep their
    // proportions within 1.3%, so a test that finds them changed is wrong. Populations on no
    // differentiation path with a neighbour of other state levels: a population that mixes them
    // with their neighbours would change its medians with its mix (the classical monocytes, on
    // the path to the non-classical ones, did).
    return {{"Memory CD8 T", "", 2.0},
            {"Naive B", "", 0.25},
            {"Treg", "pSTAT5", 1.0},
            {"CD56dim NK", "IFNg", 1.0}};
}

std::vector<CohortSample> cohortSamples(const CohortSpec& spec) {
    if (spec.patients == 0) throw InputError("demo cohort: at least one patient");
    if (spec.conditions.size() < 2)
        throw InputError("demo cohort: at least two conditions to compare");
    if (spec.events == 0) throw InputError("demo cohort: at least one cell a sample");
    const std::vector<std::string> populations = demoPopulationNames();
    // std::mt19937_64 and a hand-made normal draw (Box-Muller) are the same on every platform,
    // which std::normal_distribution is not.
    std::mt19937_64 rng(spec.seed * 0x9E3779B97F4A7C15ull + 19);
    const auto uniform = [&] { return (double(rng() >> 11) + 0.5) * 0x1.0p-53; };
    const auto normal = [&] {
        return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform());
    };
    std::vector<CohortSample> samples;
    for (size_t p = 0; p < spec.patients; ++p) {
        const std::string patient = "P" + std::to_string(p + 1);
        // A patient's own blood: each population's share off by a factor (sd 0.2 in log), and
        // each state marker a little higher or lower everywhere.
        std::vector<double> own;
        for (size_t k = 0; k < populations.size(); ++k) own.push_back(std::exp(0.2 * normal()));
        const double stateOffset = 0.05 * normal();
        for (size_t c = 0; c < spec.conditions.size(); ++c) {
            CohortSample s;
            s.patient = patient;
            s.condition = spec.conditions[c];
            s.name = patient + "_" + s.condition;
            s.seed = spec.seed * 1000003 + samples.size() + 1;
            // Each sample's own noise on top (sd 0.05 in log).
            for (size_t k = 0; k < populations.size(); ++k)
                s.variation.abundance[populations[k]] = own[k] * std::exp(0.05 * normal());
            // Staining varies from sample to sample: every state level a little off (sd 0.05),
            // which a change of a population's mix by a few per cent stays well inside.
            for (const auto& marker : demoStateMarkers())
                for (const auto& population : populations)
                    s.variation.stateShift[{population, marker}] = stateOffset + 0.05 * normal();
            if (c > 0)
                for (const auto& e : plantedEffects()) {
                    if (e.marker.empty())
                        s.variation.abundance[e.population] *= e.effect;
                    else
                        s.variation.stateShift[{e.population, e.marker}] += e.effect;
                }
            samples.push_back(std::move(s));
        }
    }
    return samples;
}

}  // namespace sepal::demo
