#include "core/stats/glmm_da.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include <boost/math/special_functions/erf.hpp>

#include "core/common/error.h"
#include "core/stats/abundance_input.h"
#include "core/stats/independent_columns.h"
#include "core/stats/p_adjust.h"

// The model of one population, in lme4's terms: eta = X beta + Z Lambda b with b standard
// normal, Lambda = diag(theta_sample for each sample, theta_patient for each patient), so the
// random vector b holds one value per sample and then one per patient. The objective is lme4's
// Laplace deviance: -2 log p(y | b) + |b|^2 + log det(Lambda'Z'WZLambda + I) at the conditional
// mode b of (theta, beta), W the binomial weights n mu (1 - mu); here less -2 log p(y) of the
// saturated fit, a constant that moves neither the optimum nor the Hessian. A sample's intercept
// touches that sample alone and a patient's its own samples, so the matrix is a diagonal block per
// sample and per patient coupled only sample-to-own-patient: every solve and determinant takes
// one pass over the samples instead of a dense factorisation.

namespace sepal::stats {
namespace {

constexpr double kGlmmNaN = std::numeric_limits<double>::quiet_NaN();
// Central differences step over (theta, beta): lme4 takes the Hessian behind glmer's variances
// with this step (its deriv12's delta); the optimiser's derivatives use it as well.
constexpr double kGlmmDifferenceStep = 1e-4;
// Conditional modes: Newton steps until the decrement (half-deviance units) drops below 1e-20,
// which leaves the modes exact to rounding. The log determinant is not stationary at the mode,
// so an error there enters the deviance to first order and the 1e-4 differences divide it by
// 1e-8: modes only roughly converged would make the Hessian noise.
constexpr int kGlmmModeMaxSteps = 60;
constexpr double kGlmmModeTolerance = 1e-20;
// Below this decrement Newton's full step is in its region of quadratic convergence and is taken
// without a line search, whose comparisons would be lost in the deviance's rounding.
constexpr double kGlmmFullStepDecrement = 1e-8;
// The outer minimisation over (theta, beta): Newton steps on the finite-difference derivatives
// until the decrement (deviance units) is below 1e-11, at most 200 steps, at most 4 long.
constexpr int kGlmmOuterMaxSteps = 200;
constexpr double kGlmmOuterTolerance = 1e-11;
constexpr double kGlmmMaxStepLength = 4;
constexpr int kGlmmHalvings = 40;

// x log(x / m) + m - x, the deviance of a count x from its mean m over two, without the
// cancellation of its terms when x is near m (a series in (x - m) / (x + m) there). Summed from
// these the deviance stays exact to rounding of its own size, where log-likelihoods of thousands
// of cells would leave noise of 1e-11 that the 1e-4 differences of the Hessian magnify 1e8 times.
double halfUnitDevianceGlmm(double x, double m) {
    if (x == 0) return m;
    const double d = x - m;
    if (std::abs(d) < 0.1 * (x + m)) {
        const double v = d / (x + m), v2 = v * v;
        double sum = d * v, term = 2 * x * v;
        for (int j = 1; j < 1000; ++j) {
            term *= v2;
            const double next = sum + term / (2 * j + 1);
            if (next == sum) break;
            sum = next;
        }
        return sum;
    }
    return x * std::log(x / m) + m - x;
}

double logisticGlmm(double x) {
    if (x >= 0) return 1 / (1 + std::exp(-x));
    const double e = std::exp(x);
    return e / (1 + e);
}

// One population's binomial GLMM with a random intercept per sample and optionally per patient.
class BinomialGlmm {
  public:
    BinomialGlmm(const Eigen::VectorXd& y, const Eigen::VectorXd& n, const Eigen::MatrixXd& x,
                 const std::vector<Eigen::Index>& patientOf, Eigen::Index patients)
        : y_(y), n_(n), x_(x), patientOf_(patientOf), patients_(patients) {
        mode_ = Eigen::VectorXd::Zero(y.size() + patients);
        jointMode_ = mode_;
        jointBeta_ = Eigen::VectorXd::Zero(x.cols());
    }

    Eigen::Index thetaCount() const { return patients_ > 0 ? 2 : 1; }

    /// lme4's stage-2 objective: the Laplace deviance at (theta, beta), the random effects at
    /// their conditional mode.
    double laplaceDeviance(const Eigen::VectorXd& theta, const Eigen::VectorXd& beta) {
        const Eigen::VectorXd offset = x_ * beta;
        if (!mode_.allFinite()) mode_.setZero();
        Eigen::VectorXd eta = predictor(offset, theta, mode_);
        double half = halfPenalisedDeviance(eta, mode_);
        for (int step = 0; step < kGlmmModeMaxSteps; ++step) {
            Eigen::VectorXd residual, weight;
            responses(eta, residual, weight);
            factor(theta, weight);
            const Eigen::VectorXd gradient = mode_ - crossZ(theta, residual);
            const Eigen::VectorXd delta = solve(-gradient);
            const double decrement = -gradient.dot(delta);
            if (!(decrement >= 0)) break;
            if (!takeStep(offset, theta, delta, decrement, eta, half)) break;
            if (decrement < kGlmmModeTolerance) break;
        }
        return finish(theta, eta, half);
    }

    /// lme4's stage-1 objective (nAGQ = 0): the Laplace deviance with beta and the random
    /// effects at their joint mode; jointBeta() is that beta afterwards.
    double jointDeviance(const Eigen::VectorXd& theta) {
        const Eigen::Index p = x_.cols();
        if (!jointMode_.allFinite() || !jointBeta_.allFinite()) {
            jointMode_.setZero();
            jointBeta_.setZero();
        }
        Eigen::VectorXd eta = predictor(x_ * jointBeta_, theta, jointMode_);
        double half = halfPenalisedDeviance(eta, jointMode_);
        for (int step = 0; step < kGlmmModeMaxSteps; ++step) {
            Eigen::VectorXd residual, weight;
            responses(eta, residual, weight);
            factor(theta, weight);
            const Eigen::VectorXd gradientB = jointMode_ - crossZ(theta, residual);
            const Eigen::VectorXd gradientBeta = -x_.transpose() * residual;
            const Eigen::MatrixXd cross = crossBlock(theta, weight);
            Eigen::MatrixXd solved(cross.rows(), p);
            for (Eigen::Index j = 0; j < p; ++j) solved.col(j) = solve(cross.col(j));
            const Eigen::MatrixXd schur =
                x_.transpose() * weight.asDiagonal() * x_ - cross.transpose() * solved;
            const Eigen::VectorXd solvedGradient = solve(-gradientB);
            const Eigen::LDLT<Eigen::MatrixXd> ldlt(schur);
            const Eigen::VectorXd deltaBeta =
                ldlt.solve(-gradientBeta - cross.transpose() * solvedGradient);
            const Eigen::VectorXd deltaB = solvedGradient - solved * deltaBeta;
            const double decrement = -gradientB.dot(deltaB) - gradientBeta.dot(deltaBeta);
            if (!(decrement >= 0) || !deltaBeta.allFinite()) break;
            if (!takeJointStep(theta, deltaB, deltaBeta, decrement, eta, half)) break;
            if (decrement < kGlmmModeTolerance) break;
        }
        mode_ = jointMode_;
        return finish(theta, eta, half);
    }

    const Eigen::VectorXd& jointBeta() const { return jointBeta_; }

    /// lme4's fallback covariance of beta (its unscaled RX'RX inverse): the beta block of the
    /// inverse of the joint (b, beta) Hessian at the conditional mode of (theta, beta).
    Eigen::MatrixXd modeCovariance(const Eigen::VectorXd& theta, const Eigen::VectorXd& beta) {
        laplaceDeviance(theta, beta);
        Eigen::VectorXd residual, weight;
        responses(predictor(x_ * beta, theta, mode_), residual, weight);
        factor(theta, weight);
        const Eigen::MatrixXd cross = crossBlock(theta, weight);
        Eigen::MatrixXd solved(cross.rows(), x_.cols());
        for (Eigen::Index j = 0; j < x_.cols(); ++j) solved.col(j) = solve(cross.col(j));
        const Eigen::MatrixXd schur =
            x_.transpose() * weight.asDiagonal() * x_ - cross.transpose() * solved;
        return schur.inverse();
    }

  private:
    Eigen::VectorXd predictor(const Eigen::VectorXd& offset, const Eigen::VectorXd& theta,
                              const Eigen::VectorXd& b) const {
        Eigen::VectorXd eta = offset + theta(0) * b.head(y_.size());
        if (patients_ > 0)
            for (Eigen::Index s = 0; s < y_.size(); ++s)
                eta(s) += theta(1) * b(y_.size() + patientOf_[size_t(s)]);
        return eta;
    }

    // Half the binomial deviance of y at eta (-log p(y | b) less its value at the saturated
    // fit, a constant), plus |b|^2 / 2.
    double halfPenalisedDeviance(const Eigen::VectorXd& eta, const Eigen::VectorXd& b) const {
        double sum = 0;
        for (Eigen::Index s = 0; s < y_.size(); ++s)
            sum += halfUnitDevianceGlmm(y_(s), n_(s) * logisticGlmm(eta(s))) +
                   halfUnitDevianceGlmm(n_(s) - y_(s), n_(s) * logisticGlmm(-eta(s)));
        return sum + 0.5 * b.squaredNorm();
    }

    void responses(const Eigen::VectorXd& eta, Eigen::VectorXd& residual,
                   Eigen::VectorXd& weight) const {
        residual.resize(y_.size());
        weight.resize(y_.size());
        for (Eigen::Index s = 0; s < y_.size(); ++s) {
            const double mu = logisticGlmm(eta(s));
            residual(s) = y_(s) - n_(s) * mu;
            weight(s) = n_(s) * mu * (1 - mu);
        }
    }

    // Lambda'Z' v for a vector over samples.
    Eigen::VectorXd crossZ(const Eigen::VectorXd& theta, const Eigen::VectorXd& v) const {
        Eigen::VectorXd out = Eigen::VectorXd::Zero(y_.size() + patients_);
        out.head(y_.size()) = theta(0) * v;
        if (patients_ > 0)
            for (Eigen::Index s = 0; s < y_.size(); ++s)
                out(y_.size() + patientOf_[size_t(s)]) += theta(1) * v(s);
        return out;
    }

    // Lambda'Z'WX: the coupling of the random effects with beta.
    Eigen::MatrixXd crossBlock(const Eigen::VectorXd& theta, const Eigen::VectorXd& weight) const {
        Eigen::MatrixXd out(y_.size() + patients_, x_.cols());
        for (Eigen::Index j = 0; j < x_.cols(); ++j)
            out.col(j) = crossZ(theta, weight.cwiseProduct(x_.col(j)));
        return out;
    }

    // Factors Lambda'Z'WZLambda + I: per sample a = theta_s^2 w + 1, coupled to its patient by
    // c = theta_s theta_p w; per patient the Schur complement theta_p^2 sum w + 1 - sum c^2/a.
    void factor(const Eigen::VectorXd& theta, const Eigen::VectorXd& weight) {
        const Eigen::Index s = y_.size();
        diagonal_ = (theta(0) * theta(0)) * weight.array() + 1;
        logDet_ = diagonal_.array().log().sum();
        if (patients_ == 0) return;
        coupling_ = (theta(0) * theta(1)) * weight;
        schur_ = Eigen::VectorXd::Ones(patients_);
        for (Eigen::Index i = 0; i < s; ++i) {
            const Eigen::Index p = patientOf_[size_t(i)];
            schur_(p) +=
                theta(1) * theta(1) * weight(i) - coupling_(i) * coupling_(i) / diagonal_(i);
        }
        logDet_ += schur_.array().log().sum();
    }

    Eigen::VectorXd solve(const Eigen::VectorXd& rhs) const {
        const Eigen::Index s = y_.size();
        Eigen::VectorXd out(rhs.size());
        if (patients_ == 0) {
            out = rhs.cwiseQuotient(diagonal_);
            return out;
        }
        Eigen::VectorXd patientRhs = rhs.tail(patients_);
        for (Eigen::Index i = 0; i < s; ++i)
            patientRhs(patientOf_[size_t(i)]) -= coupling_(i) * rhs(i) / diagonal_(i);
        out.tail(patients_) = patientRhs.cwiseQuotient(schur_);
        for (Eigen::Index i = 0; i < s; ++i)
            out(i) = (rhs(i) - coupling_(i) * out(s + patientOf_[size_t(i)])) / diagonal_(i);
        return out;
    }

    // A step of the modes: full in the quadratic region, else halved until the penalised
    // deviance does not rise. False when no step could be taken.
    bool takeStep(const Eigen::VectorXd& offset, const Eigen::VectorXd& theta,
                  const Eigen::VectorXd& delta, double decrement, Eigen::VectorXd& eta,
                  double& half) {
        double t = 1;
        for (int k = 0; k <= kGlmmHalvings; ++k, t /= 2) {
            const Eigen::VectorXd trial = mode_ + t * delta;
            const Eigen::VectorXd trialEta = predictor(offset, theta, trial);
            const double trialHalf = halfPenalisedDeviance(trialEta, trial);
            if (decrement < kGlmmFullStepDecrement || trialHalf <= half) {
                mode_ = trial;
                eta = trialEta;
                half = trialHalf;
                return true;
            }
        }
        return false;
    }

    bool takeJointStep(const Eigen::VectorXd& theta, const Eigen::VectorXd& deltaB,
                       const Eigen::VectorXd& deltaBeta, double decrement, Eigen::VectorXd& eta,
                       double& half) {
        double t = 1;
        for (int k = 0; k <= kGlmmHalvings; ++k, t /= 2) {
            const Eigen::VectorXd trialB = jointMode_ + t * deltaB;
            const Eigen::VectorXd trialBeta = jointBeta_ + t * deltaBeta;
            const Eigen::VectorXd trialEta = predictor(x_ * trialBeta, theta, trialB);
            const double trialHalf = halfPenalisedDeviance(trialEta, trialB);
            if (decrement < kGlmmFullStepDecrement || trialHalf <= half) {
                jointMode_ = trialB;
                jointBeta_ = trialBeta;
                eta = trialEta;
                half = trialHalf;
                return true;
            }
        }
        return false;
    }

    // The Laplace deviance at the modes reached, the determinant at their weights.
    double finish(const Eigen::VectorXd& theta, const Eigen::VectorXd& eta, double half) {
        Eigen::VectorXd residual, weight;
        responses(eta, residual, weight);
        factor(theta, weight);
        return 2 * half + logDet_;
    }

    const Eigen::VectorXd& y_;
    const Eigen::VectorXd& n_;
    const Eigen::MatrixXd& x_;
    const std::vector<Eigen::Index>& patientOf_;
    const Eigen::Index patients_;
    Eigen::VectorXd mode_, jointMode_, jointBeta_;
    Eigen::VectorXd diagonal_, coupling_, schur_;
    double logDet_ = 0;
};

using GlmmObjective = std::function<double(const Eigen::VectorXd&)>;

struct GlmmDerivatives {
    Eigen::VectorXd gradient;
    Eigen::MatrixXd hessian;
};

// Central differences with one step for every coordinate, as lme4's deriv12 takes them:
// (f(x+h) - 2 f(x) + f(x-h)) / h^2 on the diagonal, the four corners over (2h)^2 off it.
GlmmDerivatives glmmDifferences(const GlmmObjective& f, const Eigen::VectorXd& x, double fx) {
    const double h = kGlmmDifferenceStep;
    const Eigen::Index d = x.size();
    GlmmDerivatives out{Eigen::VectorXd(d), Eigen::MatrixXd(d, d)};
    const auto at = [&](Eigen::Index i, double hi, Eigen::Index j, double hj) {
        Eigen::VectorXd moved = x;
        moved(i) += hi;
        if (j >= 0) moved(j) += hj;
        return f(moved);
    };
    for (Eigen::Index j = 0; j < d; ++j) {
        const double up = at(j, h, -1, 0), down = at(j, -h, -1, 0);
        out.hessian(j, j) = (up - 2 * fx + down) / (h * h);
        out.gradient(j) = (up - down) / (2 * h);
        for (Eigen::Index i = 0; i < j; ++i) {
            out.hessian(i, j) = out.hessian(j, i) =
                (at(i, h, j, h) - at(i, h, j, -h) - at(i, -h, j, h) + at(i, -h, j, -h)) /
                (4 * h * h);
        }
    }
    return out;
}

struct GlmmMinimum {
    Eigen::VectorXd x;
    double value = kGlmmNaN;
    bool converged = false;
};

// Newton's method on finite-difference derivatives, the Hessian's eigenvalues replaced by their
// absolute values (floored) so that every step descends, with step halving. At a point where
// the gradient vanishes but the curvature is negative (theta exactly 0 is such a point when the
// variance should grow: the deviance is even in each theta) it steps along that curvature.
GlmmMinimum minimiseGlmm(const GlmmObjective& f, Eigen::VectorXd x) {
    GlmmMinimum out;
    double fx = f(x);
    if (!std::isfinite(fx)) return out;
    for (int step = 0; step < kGlmmOuterMaxSteps; ++step) {
        const GlmmDerivatives d = glmmDifferences(f, x, fx);
        if (!d.gradient.allFinite() || !d.hessian.allFinite()) break;
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(d.hessian);
        const Eigen::VectorXd& lambda = eigen.eigenvalues();
        const double floor = 1e-10 * std::max(1.0, lambda.cwiseAbs().maxCoeff());
        const Eigen::VectorXd inverse = lambda.cwiseAbs().cwiseMax(floor).cwiseInverse();
        const Eigen::MatrixXd& v = eigen.eigenvectors();
        Eigen::VectorXd direction = -v * inverse.asDiagonal() * v.transpose() * d.gradient;
        const double decrement = -d.gradient.dot(direction);
        if (decrement < kGlmmOuterTolerance) {
            if (lambda(0) >= -floor) {
                out.converged = true;
                break;
            }
            direction = 0.1 * v.col(0);
        }
        const double length = direction.norm();
        if (length > kGlmmMaxStepLength) direction *= kGlmmMaxStepLength / length;
        bool moved = false;
        double t = 1;
        for (int k = 0; k <= kGlmmHalvings && !moved; ++k, t /= 2) {
            for (const double sign : {1.0, -1.0}) {
                // Along negative curvature either way may descend; Newton's direction one way.
                if (sign < 0 && decrement >= kGlmmOuterTolerance) break;
                const Eigen::VectorXd trial = x + sign * t * direction;
                const double ft = f(trial);
                if (ft < fx) {
                    x = trial;
                    fx = ft;
                    moved = true;
                    break;
                }
            }
        }
        if (!moved) {
            // No lower point along a descent direction: the minimum to the precision of the
            // differences, if the decrement was already small.
            out.converged = decrement < 1e-6;
            break;
        }
    }
    out.x = x;
    out.value = fx;
    return out;
}

// One population's fit and test, by lme4's two stages: theta with beta at the joint mode, then
// (theta, beta) together on the Laplace deviance from there.
struct GlmmFit {
    Eigen::VectorXd theta, beta;
    Eigen::MatrixXd covariance;
    bool converged = false, fromHessian = false;
};

GlmmFit fitBinomialGlmm(BinomialGlmm& model) {
    const Eigen::Index nt = model.thetaCount();
    // Stage 1 from the best of a few starting variances; none is exactly 0, where the deviance's
    // symmetry in theta stops Newton's method.
    const double grid[] = {0.1, 0.3, 1.0};
    Eigen::VectorXd start = Eigen::VectorXd::Constant(nt, grid[0]);
    double best = std::numeric_limits<double>::infinity();
    for (const double a : grid)
        for (const double b : grid) {
            if (nt == 1 && b != grid[0]) continue;
            Eigen::VectorXd theta(nt);
            theta(0) = a;
            if (nt == 2) theta(1) = b;
            const double value = model.jointDeviance(theta);
            if (value < best) {
                best = value;
                start = theta;
            }
        }
    const GlmmMinimum stage1 =
        minimiseGlmm([&](const Eigen::VectorXd& t) { return model.jointDeviance(t); }, start);
    const Eigen::VectorXd theta1 = stage1.x.size() == nt && stage1.x.allFinite()
                                       ? Eigen::VectorXd(stage1.x.cwiseAbs())
                                       : start;
    model.jointDeviance(theta1);
    Eigen::VectorXd x0(nt + model.jointBeta().size());
    x0 << theta1, model.jointBeta();

    const auto laplace = [&](const Eigen::VectorXd& par) {
        return model.laplaceDeviance(par.head(nt), par.tail(par.size() - nt));
    };
    const GlmmMinimum stage2 = minimiseGlmm(laplace, x0);
    GlmmFit fit;
    if (stage2.x.size() == 0 || !stage2.x.allFinite()) return fit;
    // Variances are the absolute values: the deviance is even in each theta.
    Eigen::VectorXd par = stage2.x;
    par.head(nt) = par.head(nt).cwiseAbs();
    fit.theta = par.head(nt);
    fit.beta = par.tail(par.size() - nt);
    fit.converged = stage2.converged;

    // lme4's vcov for a GLMM: twice the beta block of the inverse of the deviance's Hessian over
    // (theta, beta); when that is singular or not positive definite, the inverse of the joint
    // Hessian of the modes' penalised deviance (RX'RX).
    const GlmmDerivatives d = glmmDifferences(laplace, par, laplace(par));
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(d.hessian);
    const Eigen::Index p = fit.beta.size();
    if (d.hessian.allFinite() && lu.rcond() >= std::numeric_limits<double>::epsilon()) {
        const Eigen::MatrixXd block = lu.inverse().bottomRightCorner(p, p);
        const Eigen::MatrixXd covariance = block + block.transpose();
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(covariance,
                                                                   Eigen::EigenvaluesOnly);
        if (covariance.allFinite() && eigen.eigenvalues().minCoeff() > 0) {
            fit.covariance = covariance;
            fit.fromHessian = true;
        }
    }
    if (!fit.fromHessian) fit.covariance = model.modeCovariance(fit.theta, fit.beta);
    return fit;
}

void checkGlmmInput(const Eigen::MatrixXd& counts, const std::vector<std::string>& populations,
                    const Eigen::MatrixXd& design, const Eigen::VectorXd& contrast,
                    const std::vector<int>& block) {
    const std::string where = "differential abundance (GLMM): ";
    checkAbundanceInput(counts, populations, design, contrast, where,
                        "to estimate the sample variance");
    if (block.empty()) return;
    if (Eigen::Index(block.size()) != counts.cols())
        throw InputError(where + std::to_string(counts.cols()) + " samples but " +
                         std::to_string(block.size()) + " patient ids in the block");
    std::map<int, int> size;
    for (const int b : block) ++size[b];
    if (size.size() < 2)
        throw InputError(where +
                         "every sample is of the same patient: a patient intercept "
                         "needs two patients or more; leave the block out");
    if (size.size() == block.size())
        throw InputError(where +
                         "every sample is of a patient of its own: the patient "
                         "intercept would be the sample intercept again; leave the "
                         "block out");
}

}  // namespace

std::vector<GlmmResult> differentialAbundanceGlmm(const Eigen::MatrixXd& counts,
                                                  const std::vector<std::string>& populations,
                                                  const Eigen::MatrixXd& design,
                                                  const Eigen::VectorXd& contrast,
                                                  const std::vector<int>& block,
                                                  const GlmmOptions& options) {
    checkGlmmInput(counts, populations, design, contrast, block);
    const Eigen::Index samples = counts.cols();
    std::vector<GlmmResult> results(populations.size());
    const double minSamples =
        options.minSamples == 0 ? double(samples) / 2 : double(options.minSamples);
    std::vector<Eigen::Index> tested;
    for (Eigen::Index i = 0; i < counts.rows(); ++i) {
        GlmmResult& r = results[size_t(i)];
        r.population = populations[size_t(i)];
        r.logFC = r.z = r.pValue = r.pAdjusted = r.sdSample = r.sdPatient = kGlmmNaN;
        const double enough = double((counts.row(i).array() >= double(options.minCells)).count());
        if (enough >= minSamples)
            tested.push_back(i);
        else
            r.note = "too few cells";
    }
    if (tested.empty()) return results;

    // The trials are the sample's cells in the populations tested, as diffcyt's testDA_GLMM
    // takes them (n_cells_smp, the column sums after filtering): the same totals as the
    // library sizes of DA-edgeR.
    const Eigen::VectorXd trials = counts(tested, Eigen::all).colwise().sum().transpose();
    for (Eigen::Index j = 0; j < samples; ++j)
        if (!(trials(j) > 0))
            throw InputError("differential abundance (GLMM): sample " + std::to_string(j + 1) +
                             " has no cells in the populations tested");
    std::vector<Eigen::Index> patientOf;
    Eigen::Index patients = 0;
    if (!block.empty()) {
        std::map<int, Eigen::Index> level;
        for (const int b : block) level.emplace(b, 0);
        for (auto& [id, index] : level) index = patients++;
        for (const int b : block) patientOf.push_back(level[b]);
    }

    std::vector<double> pValues(tested.size(), kGlmmNaN);
    for (size_t t = 0; t < tested.size(); ++t) {
        GlmmResult& r = results[size_t(tested[t])];
        const Eigen::VectorXd y = counts.row(tested[t]).transpose();
        const Eigen::ArrayXd proportion = y.array() / trials.array();
        if ((proportion == proportion(0)).all()) {
            // lme4 refuses a constant response: there is no variation to attribute.
            r.note = "the same proportion in every sample";
            continue;
        }
        BinomialGlmm model(y, trials, design, patientOf, patients);
        const GlmmFit fit = fitBinomialGlmm(model);
        const double estimate = fit.beta.size() ? contrast.dot(fit.beta) : kGlmmNaN;
        const double variance =
            fit.beta.size() ? contrast.dot(fit.covariance * contrast) : kGlmmNaN;
        if (!std::isfinite(estimate) || !(variance > 0) || !std::isfinite(variance)) {
            r.note = "the model could not be fitted";
            continue;
        }
        r.tested = true;
        r.logFC = estimate / std::log(2.0);
        r.z = estimate / std::sqrt(variance);
        // Two-sided normal tail, exact far out (multcomp's glht computes 1 - P(|Z| < z)).
        r.pValue = boost::math::erfc(std::abs(r.z) / std::sqrt(2.0));
        r.sdSample = fit.theta(0);
        if (patients > 0) r.sdPatient = fit.theta(1);
        if (!fit.converged) r.note = "the fit stopped before converging";
        if (!fit.fromHessian)
            r.note += std::string(r.note.empty() ? "" : "; ") +
                      "standard error from the conditional modes (finite-difference Hessian not "
                      "positive definite)";
        pValues[t] = r.pValue;
    }
    const std::vector<double> adjusted = adjustBenjaminiHochberg(pValues);
    for (size_t t = 0; t < tested.size(); ++t) results[size_t(tested[t])].pAdjusted = adjusted[t];
    return results;
}

}  // namespace sepal::stats
