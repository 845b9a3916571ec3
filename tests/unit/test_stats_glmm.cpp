// Differential abundance by binomial GLMMs (DA-GLMM) against the reference implementation:
// lme4 1.1-31's glmer with a Wald z of the contrast, computed once with tests/stats/glmm_da.R
// (its default "tight" mode) and written down here.
//
// The script reports two z per population. "lme4": glmer's fit and vcov as they are. "modes":
// the Hessian of glmer's own deviance function with its log determinant taken at the
// conditional modes PIRLS reached, at that function's optimum. glmer factors the determinant
// with the weights of the PIRLS iterate before the last one, about 5e-7 off, and the
// finite-difference Hessian behind vcov turns that into z off by up to ~5e-4 relative (p-values
// near 1e-20 by a few per mille); the module computes the determinant at the modes. So: logFC
// and z against glmer as it is, p-values against "modes". With glmer's default controls
// (Nelder-Mead stage 2, tolPwrss 1e-7) the same cohorts differ from the module by at most 1.6e-5
// in logFC and 6e-4 relative in z, with the same calls.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/stats/glmm_da.h"

namespace sepal::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Eigen::MatrixXd glmmMatrix(const std::vector<std::vector<double>>& rows) {
    Eigen::MatrixXd m(Eigen::Index(rows.size()), Eigen::Index(rows[0].size()));
    for (size_t i = 0; i < rows.size(); ++i)
        for (size_t j = 0; j < rows[i].size(); ++j)
            m(Eigen::Index(i), Eigen::Index(j)) = rows[i][j];
    return m;
}

std::vector<std::string> glmmNames(Eigen::Index n) {
    std::vector<std::string> names;
    for (Eigen::Index i = 0; i < n; ++i) names.push_back("p" + std::to_string(i));
    return names;
}

// The cohorts were drawn once in R (set.seed(20240611)): per sample, multinomial cells over
// logit-normal proportions with a per-sample spread, condition effects on a few populations and,
// in the paired cohort, a per-patient spread.

// Paired: 3 patients x 2 conditions (samples in patient order, condition A then B); p0 up and p3
// down in B; p9 too rare to test (3 cells or more in 2 of 6 samples).
Eigen::MatrixXd pairedCounts() {
    return glmmMatrix({{1053, 1889, 1475, 3427, 1169, 1438},
                       {2301, 2486, 1123, 755, 2175, 1147},
                       {760, 623, 368, 326, 1356, 1164},
                       {997, 363, 499, 272, 622, 270},
                       {696, 589, 638, 421, 583, 503},
                       {1146, 1127, 799, 520, 1210, 586},
                       {527, 474, 459, 375, 562, 471},
                       {505, 449, 321, 245, 456, 331},
                       {196, 174, 137, 123, 143, 105},
                       {2, 1, 2, 3, 4, 1},
                       {45, 11, 36, 3, 45, 11}});
}

Eigen::MatrixXd pairedDesign() {
    Eigen::MatrixXd design(6, 2);
    for (int s = 0; s < 6; ++s) design.row(s) << 1, s % 2;
    return design;
}

const std::vector<int> kPairedPatients = {1, 1, 2, 2, 3, 3};

// Unpaired: 12 samples, condition A (1-6) and B (7-12), a batch alternating; p13 too rare.
Eigen::MatrixXd unpairedCounts() {
    return glmmMatrix({{1661, 1545, 1333, 363, 632, 1483, 1424, 4105, 3978, 2998, 1603, 3592},
                       {1072, 1706, 1371, 398, 619, 1684, 322, 1341, 1227, 1347, 356, 1137},
                       {1496, 847, 1170, 366, 629, 1101, 429, 910, 850, 1688, 354, 1091},
                       {1007, 1062, 1410, 330, 489, 876, 180, 680, 429, 475, 141, 317},
                       {927, 656, 818, 221, 413, 660, 241, 859, 860, 772, 418, 676},
                       {978, 517, 740, 279, 329, 640, 288, 815, 821, 797, 240, 1254},
                       {782, 668, 685, 205, 279, 550, 150, 887, 697, 503, 278, 988},
                       {589, 559, 494, 147, 211, 477, 140, 647, 646, 527, 186, 477},
                       {496, 404, 522, 119, 225, 314, 209, 624, 560, 635, 285, 640},
                       {335, 407, 322, 121, 222, 275, 90, 381, 335, 442, 126, 326},
                       {270, 166, 357, 92, 101, 252, 71, 271, 309, 224, 71, 356},
                       {166, 185, 160, 40, 93, 145, 26, 68, 65, 30, 22, 102},
                       {59, 32, 58, 7, 21, 38, 12, 37, 39, 41, 12, 44},
                       {2, 5, 3, 1, 4, 2, 0, 3, 1, 2, 0, 1}});
}

Eigen::MatrixXd unpairedDesign() {
    Eigen::MatrixXd design(12, 3);
    for (int s = 0; s < 12; ++s) design.row(s) << 1, s >= 6 ? 1 : 0, s % 2;
    return design;
}

struct Reference {
    size_t row;
    double logFC, z, pAdjusted;  // glmer as it is
    double pModes;               // the determinant at the modes
    double sdSample, sdPatient;  // glmer's theta
};

void expectMatches(const std::vector<GlmmResult>& results, const std::vector<Reference>& refs) {
    for (const Reference& e : refs) {
        const GlmmResult& r = results[e.row];
        ASSERT_TRUE(r.tested) << e.row;
        EXPECT_NEAR(r.logFC, e.logFC, 1e-4) << e.row;
        EXPECT_NEAR(r.z / e.z, 1.0, 1e-3) << e.row;
        EXPECT_NEAR(r.pValue / e.pModes, 1.0, 1e-3) << e.row;
        EXPECT_EQ(r.pAdjusted < 0.05, e.pAdjusted < 0.05) << e.row;
        EXPECT_NEAR(r.sdSample, e.sdSample, 1e-5) << e.row;
        if (std::isnan(e.sdPatient))
            EXPECT_TRUE(std::isnan(r.sdPatient)) << e.row;
        else
            EXPECT_NEAR(r.sdPatient, e.sdPatient, 1e-5) << e.row;
        EXPECT_EQ(r.note, "") << e.row;
    }
}

TEST(GlmmDifferentialAbundance, PairedCohortWithPatientInterceptMatchesLme4) {
    const Eigen::MatrixXd counts = pairedCounts();
    const Eigen::VectorXd contrast = (Eigen::VectorXd(2) << 0, 1).finished();
    const auto results = differentialAbundanceGlmm(counts, glmmNames(counts.rows()), pairedDesign(),
                                                   contrast, kPairedPatients);
    ASSERT_EQ(results.size(), 11u);
    // p8's sample variance and p4, p6 and p10's patient variance are at the boundary 0.
    expectMatches(
        results,
        {{0, 1.23905623614, 5.95804751525, 1.18914690944e-08, 2.55290450956e-09, 0.174067822414,
          0.475416108494},
         {1, -0.419551065544, -1.68796170654, 0.152364300045, 0.0914192958717, 0.208829036867,
          0.311574144387},
         {2, -0.10569534635, -0.614658928382, 0.53877998903, 0.53879410053, 0.139404012873,
          0.524531924929},
         {3, -1.15194380254, -5.90309529242, 1.18914690944e-08, 3.57319171666e-09, 0.15758760562,
          0.0294540351691},
         {4, -0.263868729486, -1.39293126845, 0.204550719829, 0.16365007934, 0.15463771099, 0},
         {5, -0.506447421862, -2.45954749353, 0.0347780725281, 0.0139121653299, 0.170738259788,
          0.032284087366},
         {6, -0.128994471092, -0.878793281019, 0.421681522225, 0.379535072817, 0.115113302867, 0},
         {7, -0.232873815725, -1.8146845962, 0.139144787192, 0.0696013189029, 0.094669579805,
          0.0714979597156},
         {8, -0.150391855195, -1.5175663215, 0.184462517702, 0.12929607763, 0, 0.10283461412},
         {10, -2.22428488738, -7.03494011277, 1.99346604979e-11, 1.99346604979e-12, 0, 0}});
    EXPECT_FALSE(results[9].tested);
}

TEST(GlmmDifferentialAbundance, UnpairedCohortWithBatchMatchesLme4) {
    const Eigen::MatrixXd counts = unpairedCounts();
    const Eigen::VectorXd contrast = (Eigen::VectorXd(3) << 0, 1, 0).finished();
    const auto results =
        differentialAbundanceGlmm(counts, glmmNames(counts.rows()), unpairedDesign(), contrast);
    ASSERT_EQ(results.size(), 14u);
    expectMatches(
        results,
        {{0, 1.54640047161, 13.1889697312, 1.32032901049e-38, 1.01678047655e-39, 0.137186315507,
          kNaN},
         {1, -0.632148585036, -5.18988418079, 6.83881002599e-07, 2.10520548521e-07, 0.141065375482,
          kNaN},
         {2, -0.412284013606, -2.06570589311, 0.0542625476543, 0.0388577288067, 0.236291106882,
          kNaN},
         {3, -1.61640837056, -9.61238102333, 4.60787542464e-21, 7.11515779713e-22, 0.195153169675,
          kNaN},
         {4, -0.178315230307, -2.09556112963, 0.0542625476543, 0.0361300644889, 0.0913712809076,
          kNaN},
         {5, -0.0572512908134, -0.32655997181, 0.74400072287, 0.744005981999, 0.205163567127, kNaN},
         {6, -0.20748514017, -1.26458451233, 0.223188666824, 0.206037321922, 0.190170409618, kNaN},
         {7, -0.207154877894, -2.03609893896, 0.0542625476543, 0.0417576122714, 0.108516752593,
          kNaN},
         {8, 0.321126359864, 3.65509238164, 0.000668432401462, 0.000257400508965, 0.0897411284252,
          kNaN},
         {9, -0.339972833392, -2.42449616692, 0.0284693410009, 0.0153420397314, 0.154078026851,
          kNaN},
         {10, -0.252492850928, -1.3348313047, 0.21501003162, 0.182002588814, 0.212265442165, kNaN},
         {11, -1.6343081921, -7.69783244365, 5.99705929487e-14, 1.38394084097e-14, 0.219522459062,
          kNaN},
         {12, -0.415045893759, -2.81360435274, 0.0106143879321, 0.00489894827637, 0, kNaN}});
}

TEST(GlmmDifferentialAbundance, PopulationBelowMinCellsIsNotTested) {
    const Eigen::MatrixXd counts = pairedCounts();
    const Eigen::VectorXd contrast = (Eigen::VectorXd(2) << 0, 1).finished();
    const auto results = differentialAbundanceGlmm(counts, glmmNames(counts.rows()), pairedDesign(),
                                                   contrast, kPairedPatients);
    EXPECT_EQ(results[9].population, "p9");
    EXPECT_FALSE(results[9].tested);
    EXPECT_EQ(results[9].note, "too few cells");
    for (const double v : {results[9].logFC, results[9].z, results[9].pValue, results[9].pAdjusted,
                           results[9].sdSample, results[9].sdPatient})
        EXPECT_TRUE(std::isnan(v));
    // One sample with 4 cells is enough when asked for: p9 is tested and its cells join the
    // trials, so the others' numbers move a little.
    GlmmOptions loose;
    loose.minCells = 4;
    loose.minSamples = 1;
    const auto all = differentialAbundanceGlmm(counts, glmmNames(counts.rows()), pairedDesign(),
                                               contrast, kPairedPatients, loose);
    EXPECT_TRUE(all[9].tested);
    EXPECT_TRUE(std::isfinite(all[9].pValue));
    EXPECT_NE(all[0].logFC, results[0].logFC);
    EXPECT_NEAR(all[0].logFC, results[0].logFC, 1e-2);
}

TEST(GlmmDifferentialAbundance, ALonePopulationHasNothingToTest) {
    // With one population kept every sample's proportion is 1.
    const Eigen::MatrixXd counts = pairedCounts().topRows(1);
    const Eigen::VectorXd contrast = (Eigen::VectorXd(2) << 0, 1).finished();
    const auto results = differentialAbundanceGlmm(counts, glmmNames(1), pairedDesign(), contrast);
    EXPECT_FALSE(results[0].tested);
    EXPECT_FALSE(results[0].note.empty());
}

TEST(GlmmDifferentialAbundance, InconsistentInputIsRefused) {
    const Eigen::MatrixXd counts = pairedCounts();
    const Eigen::MatrixXd design = pairedDesign();
    const std::vector<std::string> names = glmmNames(counts.rows());
    const Eigen::VectorXd contrast = (Eigen::VectorXd(2) << 0, 1).finished();
    // Names and rows, samples and design rows, contrast and coefficients disagree.
    EXPECT_THROW(differentialAbundanceGlmm(counts, glmmNames(3), design, contrast), InputError);
    EXPECT_THROW(differentialAbundanceGlmm(counts, names, design.topRows(5), contrast), InputError);
    EXPECT_THROW(differentialAbundanceGlmm(counts, names, design, Eigen::VectorXd::Ones(3)),
                 InputError);
    EXPECT_THROW(differentialAbundanceGlmm(counts, names, design, Eigen::VectorXd::Zero(2)),
                 InputError);
    // A block of the wrong length, of one patient, of a patient per sample.
    EXPECT_THROW(differentialAbundanceGlmm(counts, names, design, contrast, {1, 1, 2, 2, 3}),
                 InputError);
    EXPECT_THROW(differentialAbundanceGlmm(counts, names, design, contrast, {4, 4, 4, 4, 4, 4}),
                 InputError);
    EXPECT_THROW(differentialAbundanceGlmm(counts, names, design, contrast, {1, 2, 3, 4, 5, 6}),
                 InputError);
    // Negative counts; a design not of full rank; a sample without cells.
    Eigen::MatrixXd negative = counts;
    negative(0, 0) = -1;
    EXPECT_THROW(differentialAbundanceGlmm(negative, names, design, contrast), InputError);
    Eigen::MatrixXd deficient(6, 3);
    deficient << design, design.col(1) * 2;
    EXPECT_THROW(differentialAbundanceGlmm(counts, names, deficient, Eigen::VectorXd::Ones(3)),
                 InputError);
    Eigen::MatrixXd empty = counts;
    empty.col(2).setZero();
    EXPECT_THROW(differentialAbundanceGlmm(empty, names, design, contrast), InputError);
}

TEST(GlmmDifferentialAbundance, PatientIdsAreLabelsOnly) {
    const Eigen::MatrixXd counts = pairedCounts();
    const Eigen::VectorXd contrast = (Eigen::VectorXd(2) << 0, 1).finished();
    const auto a = differentialAbundanceGlmm(counts, glmmNames(counts.rows()), pairedDesign(),
                                             contrast, kPairedPatients);
    const auto b = differentialAbundanceGlmm(counts, glmmNames(counts.rows()), pairedDesign(),
                                             contrast, {70, 70, -3, -3, 12, 12});
    for (size_t i = 0; i < a.size(); ++i) {
        if (!a[i].tested) continue;
        EXPECT_NEAR(a[i].logFC, b[i].logFC, 1e-9) << i;
        EXPECT_NEAR(a[i].z, b[i].z, 1e-6) << i;
    }
}

}  // namespace
}  // namespace sepal::stats
