// Differential state by limma: least squares against the closed form, variance moderation,
// block correlation, and the per-population marker test finding a planted shift and only that.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/stats/differential_state.h"
#include "core/stats/limma_duplicate_correlation.h"
#include "core/stats/limma_fit.h"
#include "core/stats/squeeze_var.h"

namespace sepal::stats {
namespace {

// Paired cohort: patient p has sample p (condition 0) and sample patients + p (condition 1).
struct Cohort {
    Eigen::MatrixXd design;
    std::vector<int> patient;
    Eigen::VectorXd contrast;
};

Cohort pairedCohort(int patients, bool patientInDesign) {
    Cohort c;
    const int samples = 2 * patients;
    const int coefs = patientInDesign ? patients + 1 : 2;
    c.design = Eigen::MatrixXd::Zero(samples, coefs);
    for (int s = 0; s < samples; ++s) {
        const int p = s % patients;
        c.patient.push_back(p);
        c.design(s, 0) = 1;
        c.design(s, 1) = s >= patients ? 1 : 0;
        if (patientInDesign && p > 0) c.design(s, 1 + p) = 1;
    }
    c.contrast = Eigen::VectorXd::Zero(coefs);
    c.contrast[1] = 1;
    return c;
}

TEST(StatsLimma, OrdinaryLeastSquaresMatchesTheClosedForm) {
    // y = a + b t on t = 0..3: b = cov(t, y) / var(t), a = mean(y) - b mean(t).
    Eigen::MatrixXd design(4, 2);
    design << 1, 0, 1, 1, 1, 2, 1, 3;
    Eigen::MatrixXd y(1, 4);
    y << 1, 2, 3, 5;
    const LinearModelFit fit = fitLinearModels(y, design);
    EXPECT_NEAR(fit.coefficients(0, 1), 1.3, 1e-12);  // sum((t-1.5)(y-2.75)) / sum((t-1.5)^2)
    EXPECT_NEAR(fit.coefficients(0, 0), 2.75 - 1.3 * 1.5, 1e-12);
    // Fitted 0.8, 2.1, 3.4, 4.7: residuals 0.2, -0.1, -0.4, 0.3, RSS 0.3 over 2 df.
    EXPECT_NEAR(fit.sigma[0], std::sqrt(0.15), 1e-12);
    EXPECT_EQ(fit.dfResidual[0], 2);
    // (X'X)^-1 = [[7/10, -3/10], [-3/10, 1/5]] for these four points.
    EXPECT_NEAR(fit.stdevUnscaled(0, 0), std::sqrt(0.7), 1e-12);
    EXPECT_NEAR(fit.stdevUnscaled(0, 1), std::sqrt(0.2), 1e-12);
}

TEST(StatsLimma, WeightedInterceptIsTheWeightedMeanAndMissingValuesDropOut) {
    const Eigen::MatrixXd design = Eigen::MatrixXd::Ones(4, 1);
    Eigen::MatrixXd y(1, 4), w(1, 4);
    y << 1, 4, NAN, 10;
    w << 1, 2, 5, 0;  // the NaN and the zero-weight sample take no part
    const LinearModelFit fit = fitLinearModels(y, design, &w);
    EXPECT_NEAR(fit.coefficients(0, 0), (1 * 1 + 2 * 4) / 3.0, 1e-12);
    EXPECT_NEAR(fit.stdevUnscaled(0, 0), 1 / std::sqrt(3.0), 1e-12);
    EXPECT_EQ(fit.dfResidual[0], 1);
    EXPECT_NEAR(fit.averages[0], 5.0, 1e-12);  // unweighted mean of the observed values
}

TEST(StatsLimma, HugePriorDfPullsVariancesToThePrior) {
    // Variances within 2% of each other with 4 df each: their spread is far below what chi-square
    // sampling alone gives, so the prior dominates.
    std::vector<double> var, df;
    for (int i = 0; i < 200; ++i) {
        var.push_back(2.0 * (1 + 0.02 * std::sin(i)));
        df.push_back(4);
    }
    var.push_back(NAN);  // not estimable: gets the prior
    df.push_back(0);
    const SqueezedVariances s = squeezeVariances(var, df);
    EXPECT_GT(s.priorDf, 1e6);
    ASSERT_EQ(s.postVar.size(), var.size());
    for (size_t i = 0; i < var.size(); ++i) {
        EXPECT_NEAR(s.postVar[i], s.priorVar[i], 1e-9);
        EXPECT_NEAR(s.priorVar[i], 2.0, 0.05);
    }
}

TEST(StatsLimma, ModeratePriorDfShrinksPartWayAndFollowsTheTrend) {
    // Scale rising with the covariate: the trended prior follows it.
    std::mt19937 rng(7);
    std::chi_squared_distribution<double> chi(4);
    std::normal_distribution<double> spread(0, 0.5);  // true variances differ beyond the trend
    std::vector<double> var, df, covariate;
    for (int i = 0; i < 400; ++i) {
        const double c = i / 100.0;
        covariate.push_back(c);
        var.push_back(std::exp(c + spread(rng)) * chi(rng) / 4);
        df.push_back(4);
    }
    const SqueezedVariances s = squeezeVariances(var, df, &covariate);
    EXPECT_TRUE(std::isfinite(s.priorDf));
    EXPECT_GT(s.priorVar.back() / s.priorVar.front(), 20.0);  // e^4 = 55 across the range
    for (size_t i = 0; i < var.size(); ++i) {
        const double lo = std::min(var[i], s.priorVar[i]), hi = std::max(var[i], s.priorVar[i]);
        EXPECT_GE(s.postVar[i], lo - 1e-12);
        EXPECT_LE(s.postVar[i], hi + 1e-12);
    }
}

TEST(StatsLimma, DuplicateCorrelationRecoversAPlantedPatientCorrelation) {
    const Cohort c = pairedCohort(12, false);
    std::mt19937 rng(11);
    std::normal_distribution<double> patientEffect(0, std::sqrt(0.7)), noise(0, std::sqrt(0.3));
    Eigen::MatrixXd y(300, c.design.rows());
    for (Eigen::Index r = 0; r < y.rows(); ++r) {
        std::vector<double> effect(12);
        for (double& e : effect) e = patientEffect(rng);
        for (Eigen::Index s = 0; s < y.cols(); ++s)
            y(r, s) = effect[size_t(c.patient[s])] + noise(rng);
    }
    const BlockCorrelation rho = duplicateCorrelation(y, c.design, c.patient);
    EXPECT_NEAR(rho.consensus, 0.7, 0.1);
    // A design with the patients in it leaves nothing for the block: correlation zero.
    const Cohort withPatients = pairedCohort(12, true);
    EXPECT_EQ(duplicateCorrelation(y, withPatients.design, withPatients.patient).consensus, 0.0);
}

struct StateData {
    std::vector<Eigen::MatrixXd> medians;
    std::vector<std::string> markers, populations;
    Eigen::MatrixXd cells;
};

// 8 populations x 6 markers over the cohort's samples; population 3 is rare in two samples of three
// (filtered out) and population 5 has no cells in one sample (a missing median).
StateData plantedShiftData(const Cohort& c, double shift) {
    const Eigen::Index samples = c.design.rows();
    const int patients = int(samples / 2);
    std::mt19937 rng(3);
    std::normal_distribution<double> unit(0, 1);
    StateData d;
    for (int p = 0; p < 8; ++p) d.populations.push_back("pop" + std::to_string(p));
    for (int m = 0; m < 6; ++m) d.markers.push_back("marker" + std::to_string(m));
    d.cells = Eigen::MatrixXd::Constant(8, samples, 500);
    for (Eigen::Index s = 0; s < samples; ++s)
        if (s % 3 != 0) d.cells(3, s) = 1;
    d.cells(5, 0) = 0;
    std::vector<double> patientShift(static_cast<size_t>(patients));
    for (double& v : patientShift) v = 0.3 * unit(rng);
    for (int m = 0; m < 6; ++m) {
        Eigen::MatrixXd med(8, samples);
        for (int p = 0; p < 8; ++p)
            for (Eigen::Index s = 0; s < samples; ++s) {
                const double planted = (p == 2 && m == 4 && c.design(s, 1) == 1) ? shift : 0;
                med(p, s) =
                    1.0 + 0.1 * m + patientShift[size_t(c.patient[s])] + planted + 0.1 * unit(rng);
                if (d.cells(p, s) == 0) med(p, s) = NAN;
            }
        d.medians.push_back(med);
    }
    return d;
}

void expectOnlyThePlantedShift(const Cohort& c, const std::vector<int>& block) {
    const StateData d = plantedShiftData(c, 1.0);
    const std::vector<StateResult> results = differentialStateLimma(
        d.medians, d.markers, d.cells, d.populations, c.design, c.contrast, block);
    ASSERT_EQ(results.size(), 8u * 6u);
    for (const StateResult& r : results) {
        const bool planted = r.population == "pop2" && r.marker == "marker4";
        if (r.population == "pop3") {
            EXPECT_FALSE(r.tested);
            EXPECT_TRUE(std::isnan(r.pAdjusted));
            continue;
        }
        ASSERT_TRUE(r.tested) << r.population << " " << r.marker;
        EXPECT_EQ(r.pAdjusted < 0.05, planted) << r.population << " " << r.marker;
        if (planted) {
            EXPECT_NEAR(r.logFC, 1.0, 0.2);
        }
    }
}

TEST(StatsLimma, PlantedShiftIsFoundAndNothingElse) {
    expectOnlyThePlantedShift(pairedCohort(6, true), {});
}

TEST(StatsLimma, PlantedShiftIsFoundWithPatientsAsBlocks) {
    const Cohort c = pairedCohort(6, false);
    expectOnlyThePlantedShift(c, c.patient);
}

TEST(StatsLimma, MismatchedSizesAreInputErrors) {
    const Cohort c = pairedCohort(4, true);
    const StateData d = plantedShiftData(pairedCohort(4, false), 1.0);
    const auto run = [&](const std::vector<Eigen::MatrixXd>& medians,
                         const std::vector<std::string>& markers, const Eigen::MatrixXd& design,
                         const Eigen::VectorXd& contrast, const std::vector<int>& block) {
        differentialStateLimma(medians, markers, d.cells, d.populations, design, contrast, block);
    };
    EXPECT_NO_THROW(run(d.medians, d.markers, c.design, c.contrast, {}));
    std::vector<std::string> fewerMarkers(d.markers.begin(), d.markers.end() - 1);
    EXPECT_THROW(run(d.medians, fewerMarkers, c.design, c.contrast, {}), InputError);
    EXPECT_THROW(run(d.medians, d.markers, c.design.topRows(7), c.contrast, {}), InputError);
    EXPECT_THROW(run(d.medians, d.markers, c.design, c.contrast.head(2), {}), InputError);
    EXPECT_THROW(run(d.medians, d.markers, c.design, c.contrast, {0, 1, 2}), InputError);
    std::vector<Eigen::MatrixXd> narrow = d.medians;
    narrow[2] = narrow[2].leftCols(5).eval();  // a copy first: the block aliases its matrix
    EXPECT_THROW(run(narrow, d.markers, c.design, c.contrast, {}), InputError);
    EXPECT_THROW(squeezeVariances({1.0, 2.0}, {3.0, 3.0, 3.0}), InputError);
}

}  // namespace
}  // namespace sepal::stats
