// sepal-bench stats: how long the comparison of conditions takes, so that the Compare window
// keeps up with the steering: differential abundance of 50 populations x 40 samples (edgeR and
// the GLMM), differential state of 50 populations x 40 state markers x 40 samples (limma, with a
// patient block), and what the app does after a merge on a generated study (the samples'
// counts and state medians tallied from every cell, then the tests). One JSON line a case.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "core/cluster/population_tally.h"
#include "core/demo/demo_cohort.h"
#include "core/stats/differential_state.h"
#include "core/stats/edger_da.h"
#include "core/stats/glmm_da.h"
#include "core/stats/study_statistics.h"
#include "core/stats/tally_tables.h"
#include "embedsom_bench_data.h"

namespace sepal::bench {
namespace {

struct StatsOptions {
    size_t populations = 50;
    size_t samples = 40;
    size_t markers = 40;
    size_t cohortCells = 100000;  // per sample of the 3 x 2 study
    int repeats = 5;
    uint64_t seed = 1;
};

void report(const std::string& name, const StatsOptions& o, const Timings& t,
            nlohmann::json extra = {}) {
    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "stats";
    j["case"] = name;
    j["repeats"] = o.repeats;
    j["ms_median"] = t.median * 1e3;
    j["ms_min"] = t.min * 1e3;
    j["ms_max"] = t.max * 1e3;
    for (auto& [key, value] : extra.items()) j[key] = value;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

/// Two conditions, half the samples each, patients of two samples: intercept, condition,
/// and the contrast of the condition.
struct Design {
    Eigen::MatrixXd matrix;
    Eigen::VectorXd contrast;
    std::vector<int> patient;
};

Design twoConditions(size_t samples) {
    Design d{Eigen::MatrixXd::Ones(Eigen::Index(samples), 2), Eigen::VectorXd::Zero(2), {}};
    for (size_t s = 0; s < samples; ++s) {
        d.matrix(Eigen::Index(s), 1) = double(s % 2);
        d.patient.push_back(int(s / 2));
    }
    d.contrast(1) = 1;
    return d;
}

/// Negative binomial counts (dispersion 0.05) around populations of 20 to 20000 cells, a tenth
/// of them four times as many in the second condition.
Eigen::MatrixXd cohortCounts(const StatsOptions& o, std::mt19937_64& rng) {
    Eigen::MatrixXd counts(Eigen::Index(o.populations), Eigen::Index(o.samples));
    for (size_t p = 0; p < o.populations; ++p) {
        const double base = 20 * std::pow(1000.0, double(p) / double(o.populations));
        for (size_t s = 0; s < o.samples; ++s) {
            const double mean = base * (p % 10 == 0 && s % 2 ? 4 : 1);
            std::gamma_distribution<double> gamma(20, mean / 20);
            std::poisson_distribution<long> poisson(gamma(rng));
            counts(Eigen::Index(p), Eigen::Index(s)) = double(poisson(rng));
        }
    }
    return counts;
}

void runStats(const StatsOptions& o) {
    std::mt19937_64 rng(o.seed);
    const Design design = twoConditions(o.samples);
    const Eigen::MatrixXd counts = cohortCounts(o, rng);
    std::vector<std::string> names;
    for (size_t p = 0; p < o.populations; ++p) names.push_back("p" + std::to_string(p));
    const nlohmann::json shape = {{"populations", o.populations}, {"samples", o.samples}};
    report("abundance_edger", o,
           timeRepeated(o.repeats,
                        [&] {
                            stats::differentialAbundanceEdgeR(counts, names, design.matrix,
                                                              design.contrast);
                        }),
           shape);
    report("abundance_glmm", o,
           timeRepeated(o.repeats,
                        [&] {
                            stats::differentialAbundanceGlmm(counts, names, design.matrix,
                                                             design.contrast);
                        }),
           shape);
    report("abundance_glmm_patient", o,
           timeRepeated(o.repeats,
                        [&] {
                            stats::differentialAbundanceGlmm(counts, names, design.matrix,
                                                             design.contrast, design.patient);
                        }),
           shape);
    // Medians around a level per population and marker, noise 0.05, a shift in a tenth.
    std::vector<Eigen::MatrixXd> medians;
    std::vector<std::string> markers;
    std::normal_distribution<double> noise(0, 0.05);
    for (size_t m = 0; m < o.markers; ++m) {
        Eigen::MatrixXd v(Eigen::Index(o.populations), Eigen::Index(o.samples));
        for (Eigen::Index p = 0; p < v.rows(); ++p)
            for (Eigen::Index s = 0; s < v.cols(); ++s)
                v(p, s) = 1 + 0.01 * double(p + m) + noise(rng) +
                          ((p + Eigen::Index(m)) % 10 == 0 && s % 2 ? 0.5 : 0);
        medians.push_back(std::move(v));
        markers.push_back("m" + std::to_string(m));
    }
    report("state_limma_block", o,
           timeRepeated(o.repeats,
                        [&] {
                            stats::differentialStateLimma(medians, markers, counts, names,
                                                          design.matrix, design.contrast,
                                                          design.patient);
                        }),
           {{"populations", o.populations}, {"samples", o.samples}, {"markers", o.markers}});

    // The app after a merge: the study's cells (3 patients x 2 conditions), their populations
    // (the demo's, two of them merged) and nine state markers, tallied per sample, then both
    // tests, as the Compare window does on its worker.
    const auto samples = demo::cohortSamples({3, {"unstim", "stim"}, o.cohortCells, o.seed});
    const std::vector<std::string> states = demo::demoStateMarkers();
    std::vector<std::vector<int32_t>> codes;
    std::vector<Matrix> values;
    SampleMetadata metadata;
    metadata.columns = {"condition", "patient"};
    for (const auto& s : samples) {
        const io::Table t = demo::makeDemoTable(o.cohortCells, s.seed, true, s.variation);
        std::vector<size_t> columns;
        for (const auto& m : states)
            for (size_t c = 0; c < t.channels.size(); ++c)
                if (t.channels[c].marker == m) columns.push_back(c);
        size_t code = 0;
        while (t.channels[code].name != "Population") ++code;
        Matrix v(t.events(), columns.size());
        std::vector<int32_t> c(t.events());
        for (size_t i = 0; i < t.events(); ++i) {
            for (size_t k = 0; k < columns.size(); ++k)
                v.at(i, k) = std::asinh(t.values.at(i, columns[k]) / 5.0f);
            c[i] = std::max(0, int32_t(t.values.at(i, code)) - 1);  // the first two merged
        }
        values.push_back(std::move(v));
        codes.push_back(std::move(c));
        metadata.files.push_back(s.name);
        metadata.values.push_back({s.condition, s.patient});
    }
    std::vector<std::string> populations = demo::demoPopulationNames();
    populations.erase(populations.begin());
    populations.front() = "CD4 T (naive and memory merged)";
    stats::StudyRequest request;
    request.formula = "condition + patient";
    request.contrast = "condition:stim-unstim";
    request.block = "patient";
    request.stateMarkers = states;
    size_t called = 0;
    // Timed first: the figures reported below read what the runs found.
    const Timings t = timeRepeated(o.repeats, [&] {
        PopulationTally tally(populations, states, 1, false);
        for (size_t s = 0; s < samples.size(); ++s) {
            tally.add(s, samples[s].name, codes[s], values[s]);
            tally.finishSample(s);
        }
        const stats::AbundanceTable table = stats::abundanceOf(tally);
        const stats::SampleMedianTable medians = stats::sampleMediansOf(tally);
        const auto result = stats::compareConditions(table, metadata, request, &medians);
        called = 0;
        for (const auto& r : result.abundance) called += r.tested && r.pAdjusted < 0.05;
    });
    report("after_merge", o, t,
           {{"cells", o.cohortCells * samples.size()},
            {"samples", samples.size()},
            {"populations", populations.size()},
            {"state_markers", states.size()},
            {"called", called}});
}

void addStats(CLI::App& app) {
    auto o = std::make_shared<StatsOptions>();
    CLI::App* cmd = app.add_subcommand(
        "stats", "Time the comparison of conditions: abundance, state and the app after a merge");
    cmd->add_option("--populations", o->populations)->capture_default_str();
    cmd->add_option("--samples", o->samples)->capture_default_str();
    cmd->add_option("--markers", o->markers, "state markers")->capture_default_str();
    cmd->add_option("--cohort-cells", o->cohortCells, "cells a sample of the 3 x 2 study")
        ->capture_default_str();
    cmd->add_option("--repeats", o->repeats)->capture_default_str();
    cmd->add_option("--seed", o->seed)->capture_default_str();
    cmd->callback([o] { runStats(*o); });
}

}  // namespace

static BenchRegistration statsBench{addStats};

}  // namespace sepal::bench
