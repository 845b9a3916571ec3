#include "core/demo/demo_cohort.h"

#include <cmath>
#include <random>

#include "core/common/error.h"
#include "core/transform/channel_roles.h"

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

namespace {

// Spreads the patients over the batches (P1 in b1, P2 in b2, ...), gives each batch its factor
// per marker (log-normal, sd 0.35: an instrument's sensitivity from day to day) and adds the
// reference donor's sample of each batch. Drawn from a stream of their own, so the patients'
// cells are those of the cohort without batches.
void addBatches(std::vector<CohortSample>& samples, const CohortSpec& spec,
                const std::vector<std::string>& populations) {
    std::mt19937_64 rng(spec.seed * 0xD1B54A32D192ED03ull + 7);
    const auto uniform = [&] { return (double(rng() >> 11) + 0.5) * 0x1.0p-53; };
    const auto normal = [&] {
        return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform());
    };
    std::vector<std::string> markers;
    const io::Table names = makeDemoTable(1, 1, true);
    const std::vector<ChannelRole> roles = channelRoles(names);
    for (size_t c = 0; c < names.channels.size(); ++c)
        if (roles[c] == ChannelRole::Marker) markers.push_back(names.channels[c].marker);
    std::vector<std::map<std::string, double>> factors(spec.batches);
    for (auto& batch : factors)
        for (const auto& m : markers) batch[m] = std::exp(0.35 * normal());
    // Drawn after the batches' factors and only when asked for, so that a study without them
    // stays the same.
    std::vector<std::map<std::pair<std::string, std::string>, double>> ownFactors(spec.batches);
    if (spec.populationBatchEffects)
        for (auto& batch : ownFactors)
            for (const auto& p : populations)
                for (const auto& m : markers) batch[{p, m}] = std::exp(0.3 * normal());
    const size_t perPatient = spec.conditions.size();
    for (size_t i = 0; i < samples.size(); ++i) {
        const size_t b = (i / perPatient) % spec.batches;
        samples[i].batch = "b" + std::to_string(b + 1);
        samples[i].batchFactor = factors[b];
        samples[i].populationBatchFactor = ownFactors[b];
    }
    // The reference donor: a blood of its own, the same in every batch, each sample's noise.
    std::vector<double> own;
    for (size_t k = 0; k < populations.size(); ++k) own.push_back(std::exp(0.2 * normal()));
    const size_t patients = samples.size();
    for (size_t b = 0; b < spec.batches; ++b) {
        CohortSample s;
        s.patient = "Ref";
        s.condition = spec.conditions.front();
        s.batch = "b" + std::to_string(b + 1);
        s.name = "Ref_" + s.batch;
        s.reference = true;
        s.seed = spec.seed * 1000003 + patients + b + 1;
        for (size_t k = 0; k < populations.size(); ++k)
            s.variation.abundance[populations[k]] = own[k] * std::exp(0.05 * normal());
        s.batchFactor = factors[b];
        s.populationBatchFactor = ownFactors[b];
        samples.push_back(std::move(s));
    }
}

}  // namespace

std::vector<CohortSample> cohortSamples(const CohortSpec& spec) {
    if (spec.patients == 0) throw InputError("demo cohort: at least one patient");
    if (spec.conditions.size() < 2)
        throw InputError("demo cohort: at least two conditions to compare");
    if (spec.events == 0) throw InputError("demo cohort: at least one cell a sample");
    if (spec.batches == 0 || spec.batches > spec.patients)
        throw InputError("demo cohort: between one batch and one a patient (" +
                         std::to_string(spec.patients) + "), not " + std::to_string(spec.batches));
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
    if (spec.batches > 1) addBatches(samples, spec, populations);
    return samples;
}

io::Table cohortTable(const CohortSample& sample, size_t events) {
    io::Table table = makeDemoTable(events, sample.seed, true, sample.variation);
    if (sample.batchFactor.empty()) return table;
    const std::vector<ChannelRole> roles = channelRoles(table);
    const std::vector<std::string> populations = demoPopulationNames();
    const int code = table.findChannel("Population");
    for (size_t c = 0; c < table.channels.size(); ++c) {
        const std::string& marker = table.channels[c].marker;
        const auto it = sample.batchFactor.find(marker);
        if (roles[c] != ChannelRole::Marker || it == sample.batchFactor.end()) continue;
        // Per population code (the index of its name): the batch's factor times the
        // population's own.
        std::vector<double> factor(populations.size(), it->second);
        for (size_t p = 0; p < populations.size(); ++p)
            if (const auto own = sample.populationBatchFactor.find({populations[p], marker});
                own != sample.populationBatchFactor.end())
                factor[p] *= own->second;
        for (size_t i = 0; i < table.events(); ++i) {
            const size_t p = code < 0 ? 0 : size_t(table.values.at(i, size_t(code)));
            table.values.at(i, c) = float(table.values.at(i, c) * factor.at(p));
        }
    }
    return table;
}

}  // namespace sepal::demo
