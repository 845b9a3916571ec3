// Differential abundance by negative binomial GLMs (DA-edgeR): the GLM fits, the spline maximum,
// the dispersions and the whole test, against closed forms and against results of the reference
// implementation (edgeR 3.40.2, computed once and written down here).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/stats/edger_da.h"
#include "core/stats/nb_dispersion.h"
#include "core/stats/nb_glm.h"
#include "core/stats/spline_maximum.h"

namespace sepal::stats {
namespace {

Eigen::MatrixXd matrixOf(const std::vector<std::vector<double>>& rows) {
    Eigen::MatrixXd m(Eigen::Index(rows.size()), Eigen::Index(rows[0].size()));
    for (size_t i = 0; i < rows.size(); ++i)
        for (size_t j = 0; j < rows[i].size(); ++j)
            m(Eigen::Index(i), Eigen::Index(j)) = rows[i][j];
    return m;
}

std::vector<std::string> namesFor(Eigen::Index n) {
    std::vector<std::string> names;
    for (Eigen::Index i = 0; i < n; ++i) names.push_back("p" + std::to_string(i));
    return names;
}

// Eight samples, four per condition; p0 is four times as abundant in condition B, p6 has too
// few cells to be tested.
Eigen::MatrixXd plantedCounts() {
    return matrixOf({{482, 617, 448, 543, 2142, 2230, 1970, 1658},
                     {1681, 1925, 2197, 2639, 1664, 1958, 2626, 1753},
                     {2864, 3723, 2719, 3225, 3194, 3380, 2969, 2456},
                     {1276, 1433, 1633, 1995, 1259, 1452, 1961, 1330},
                     {2361, 3119, 2291, 2662, 2643, 2844, 2489, 2021},
                     {431, 475, 539, 670, 423, 478, 651, 448},
                     {2, 0, 1, 4, 0, 1, 2, 0}});
}

Eigen::MatrixXd twoConditionDesign() {
    Eigen::MatrixXd design(8, 2);
    for (int j = 0; j < 8; ++j) design.row(j) << 1, j >= 4 ? 1 : 0;
    return design;
}

TEST(EdgeRGlm, InterceptOnlyWithEqualLibrariesFitsTheMeanCount) {
    const Eigen::VectorXd y = (Eigen::VectorXd(5) << 3, 10, 7, 0, 25).finished();
    const Eigen::VectorXd offset = Eigen::VectorXd::Constant(5, std::log(1000.0));
    const Eigen::MatrixXd design = Eigen::MatrixXd::Ones(5, 1);
    for (const double phi : {0.0, 0.05, 0.7}) {
        const NbGlmFit fit = fitNbGlm(y, design, offset, phi);
        for (Eigen::Index j = 0; j < 5; ++j) EXPECT_NEAR(fit.fitted(j), 9.0, 1e-8) << phi;
        EXPECT_NEAR(fit.coefficients(0), std::log(9.0 / 1000), 1e-10);
    }
}

TEST(EdgeRGlm, PoissonInterceptOnlyFitsTheRateOfAllCells) {
    const Eigen::VectorXd y = (Eigen::VectorXd(4) << 12, 40, 5, 31).finished();
    const Eigen::VectorXd lib = (Eigen::VectorXd(4) << 500, 2000, 300, 1200).finished();
    const NbGlmFit fit = fitNbGlm(y, Eigen::MatrixXd::Ones(4, 1), lib.array().log(), 0.0);
    const double rate = y.sum() / lib.sum();
    for (Eigen::Index j = 0; j < 4; ++j) EXPECT_NEAR(fit.fitted(j), rate * lib(j), 1e-8);
}

TEST(EdgeRGlm, DampedNewtonSolvesTheScoreEquations) {
    // An intercept and a continuous covariate: not a one-way layout.
    const Eigen::VectorXd y = (Eigen::VectorXd(6) << 20, 35, 18, 60, 41, 90).finished();
    Eigen::MatrixXd design(6, 2);
    design << 1, 0.1, 1, 0.5, 1, 0.2, 1, 1.3, 1, 0.9, 1, 2.0;
    const Eigen::VectorXd offset = Eigen::VectorXd::Constant(6, std::log(5000.0));
    const double phi = 0.1;
    const NbGlmFit fit = fitNbGlm(y, design, offset, phi);
    const Eigen::VectorXd score =
        design.transpose() * ((y - fit.fitted).array() / (1 + phi * fit.fitted.array())).matrix();
    EXPECT_LT(score.cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_GT(fit.coefficients(1), 0.5);  // counts rise with the covariate
    EXPECT_NEAR(fit.deviance, nbDeviance(y, fit.fitted, phi), 1e-12);
}

TEST(EdgeRGlm, DevianceIsZeroAtTheCountsAndGrowsAway) {
    const Eigen::VectorXd y = (Eigen::VectorXd(3) << 4, 0, 100).finished();
    for (const double phi : {0.0, 0.2, 5.0}) {
        EXPECT_NEAR(nbDeviance(y, y, phi), 0.0, 1e-6);
        EXPECT_GT(nbDeviance(y, y * 1.5 + Eigen::VectorXd::Ones(3), phi), 0.1);
    }
}

TEST(EdgeRSpline, MaximumOfACubicIsExact) {
    // Cubic splines with these end conditions reproduce a cubic, so its maximum is found exactly
    // even between grid points.
    const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(21, -10, 10);
    Eigen::VectorXd y(21);
    for (Eigen::Index i = 0; i < 21; ++i) {
        const double t = x(i) - 0.3;
        y(i) = -t * t + 0.001 * t * t * t;
    }
    EXPECT_NEAR(maximizeInterpolant(x, y), 0.3, 1e-10);
    // At the edge of the grid the maximum stays on the grid.
    EXPECT_NEAR(maximizeInterpolant(x, x), 10.0, 1e-12);
}

TEST(EdgeRDispersion, PoissonCountsGetASmallCommonDispersion) {
    const Eigen::MatrixXd counts = plantedCounts().topRows(6);
    const Eigen::VectorXd offset = counts.colwise().sum().transpose().array().log();
    const DispersionEstimates d = estimateDispersions(counts, twoConditionDesign(), offset);
    // The reference gives 0.0134560663513 and an infinite prior df on this cohort.
    EXPECT_NEAR(d.common, 0.0134560663513, 1e-8);
    EXPECT_TRUE(std::isinf(d.priorDf));
    for (Eigen::Index i = 0; i < d.tagwise.size(); ++i) EXPECT_DOUBLE_EQ(d.tagwise(i), d.common);
}

TEST(EdgeRDifferentialAbundance, PlantedFourFoldChangeIsTheOnlyCall) {
    const Eigen::MatrixXd counts = plantedCounts();
    const Eigen::VectorXd contrast = (Eigen::VectorXd(2) << 0, 1).finished();
    const auto results =
        differentialAbundanceEdgeR(counts, namesFor(counts.rows()), twoConditionDesign(), contrast);
    ASSERT_EQ(results.size(), 7u);
    EXPECT_TRUE(results[0].tested);
    EXPECT_LT(results[0].pAdjusted, 0.05);
    EXPECT_GT(results[0].logFC, 1.5);  // 2 less the shift of the library sizes
    for (size_t i = 1; i < 6; ++i) {
        EXPECT_TRUE(results[i].tested) << i;
        EXPECT_GT(results[i].pAdjusted, 0.05) << i;
    }
    // Reference values for p0 and p3.
    EXPECT_NEAR(results[0].logFC, 1.8044233357815, 1e-8);
    EXPECT_NEAR(results[0].logCPM, 16.7775680297341, 1e-8);
    EXPECT_NEAR(results[0].LR, 203.492066451045, 1e-6);
    EXPECT_NEAR(results[3].pValue / 0.0814635102761434, 1.0, 1e-7);
    EXPECT_NEAR(results[3].pAdjusted / 0.103091125423108, 1.0, 1e-7);
}

TEST(EdgeRDifferentialAbundance, PopulationBelowMinCellsIsNotTested) {
    const Eigen::MatrixXd counts = plantedCounts();
    const Eigen::VectorXd contrast = (Eigen::VectorXd(2) << 0, 1).finished();
    const auto results =
        differentialAbundanceEdgeR(counts, namesFor(counts.rows()), twoConditionDesign(), contrast);
    EXPECT_EQ(results[6].population, "p6");
    EXPECT_FALSE(results[6].tested);
    EXPECT_TRUE(std::isnan(results[6].logFC));
    EXPECT_TRUE(std::isnan(results[6].pValue));
    EXPECT_TRUE(std::isnan(results[6].pAdjusted));
    // Asking for one sample with 2 cells tests it.
    EdgeROptions loose;
    loose.minCells = 2;
    loose.minSamples = 1;
    const auto all = differentialAbundanceEdgeR(counts, namesFor(counts.rows()),
                                                twoConditionDesign(), contrast, loose);
    EXPECT_TRUE(all[6].tested);
    EXPECT_FALSE(std::isnan(all[6].pValue));
}

// Six samples, three patients in two conditions, ~ condition + patient: damped Newton fits,
// a population absent from condition B and one filtered out.
TEST(EdgeRDifferentialAbundance, PairedDesignMatchesTheReference) {
    const Eigen::MatrixXd counts = matrixOf({{346, 628, 1153, 1097, 614, 1991},
                                             {1511, 9232, 4479, 17818, 1180, 11471},
                                             {1990, 3839, 3719, 3679, 1555, 3965},
                                             {722, 1891, 1279, 1375, 1123, 3631},
                                             {2090, 1089, 3428, 820, 1902, 899},
                                             {1762, 4081, 2524, 2157, 1210, 2155},
                                             {1899, 2176, 3173, 2326, 1150, 2404},
                                             {679, 1114, 639, 1117, 444, 912},
                                             {250, 558, 519, 326, 574, 1071},
                                             {0, 3, 0, 0, 4, 6},
                                             {5, 0, 7, 0, 9, 0},
                                             {1, 0, 2, 1, 0, 0}});
    const Eigen::MatrixXd design = matrixOf(
        {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 0, 1, 0}, {1, 1, 1, 0}, {1, 0, 0, 1}, {1, 1, 0, 1}});
    const Eigen::VectorXd contrast = (Eigen::VectorXd(4) << 0, 1, 0, 0).finished();
    const auto r = differentialAbundanceEdgeR(counts, namesFor(12), design, contrast);
    struct Expected {
        size_t row;
        double logFC, logCPM, LR, p;
    };
    const Expected expected[] = {
        {0, -0.248165935335676, 15.5110565145625, 1.24677972531917, 0.264168424737273},
        {1, 1.55145346864835, 18.2178873908533, 48.5489261139973, 3.22150678456605e-12},
        {4, -2.43784410832723, 16.7126748130707, 111.551507186786, 4.48013120697047e-26},
        {9, -0.212291400546058, 7.64489690905009, 0.0596711390694895, 0.807016475500585},
        {10, -6.57775930044521, 8.10938175787356, 44.3094672989527, 2.80357091875955e-11}};
    for (const Expected& e : expected) {
        ASSERT_TRUE(r[e.row].tested) << e.row;
        EXPECT_NEAR(r[e.row].logFC, e.logFC, 1e-6) << e.row;
        EXPECT_NEAR(r[e.row].logCPM, e.logCPM, 1e-6) << e.row;
        EXPECT_NEAR(r[e.row].LR, e.LR, 1e-5 * std::max(1.0, e.LR)) << e.row;
        EXPECT_NEAR(r[e.row].pValue / e.p, 1.0, 1e-5) << e.row;
    }
    EXPECT_FALSE(r[11].tested);
}

TEST(EdgeRDifferentialAbundance, DesignNotOfFullRankIsRefused) {
    const Eigen::MatrixXd counts = plantedCounts();
    Eigen::MatrixXd design(8, 3);
    design << twoConditionDesign(), twoConditionDesign().col(1) * 2;  // a copy of condition
    const Eigen::VectorXd contrast = (Eigen::VectorXd(3) << 0, 1, 0).finished();
    EXPECT_THROW(differentialAbundanceEdgeR(counts, namesFor(counts.rows()), design, contrast),
                 InputError);
}

TEST(EdgeRDifferentialAbundance, InconsistentShapesAreRefused) {
    const Eigen::MatrixXd counts = plantedCounts();
    const Eigen::VectorXd contrast = (Eigen::VectorXd(2) << 0, 1).finished();
    EXPECT_THROW(differentialAbundanceEdgeR(counts, namesFor(3), twoConditionDesign(), contrast),
                 InputError);
    EXPECT_THROW(differentialAbundanceEdgeR(counts.leftCols(6), namesFor(counts.rows()),
                                            twoConditionDesign(), contrast),
                 InputError);
    EXPECT_THROW(differentialAbundanceEdgeR(counts, namesFor(counts.rows()), twoConditionDesign(),
                                            Eigen::VectorXd::Ones(3)),
                 InputError);
    Eigen::MatrixXd negative = counts;
    negative(0, 0) = -1;
    EXPECT_THROW(differentialAbundanceEdgeR(negative, namesFor(counts.rows()), twoConditionDesign(),
                                            contrast),
                 InputError);
}

}  // namespace
}  // namespace sepal::stats
