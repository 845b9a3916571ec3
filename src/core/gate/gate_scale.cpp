#include "core/gate/gate_scale.h"

#include <cmath>
#include <limits>
#include <optional>

#include "core/common/error.h"
#include "core/transform/logicle.h"

namespace sepal {

namespace {

const double kLn10 = std::log(10.0);
const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

// The root of a continuous increasing function f on the real line: x with f(x) = target. The
// bracket grows from [lo, hi] until it holds the root; then bisection to the last bit, which
// a gate's inclusive boundary needs (Newton's step may stop one ulp to either side).
template <class F>
double increasingRoot(const F& f, double target, double lo, double hi) {
    if (std::isnan(target)) return kNaN;
    if (std::isinf(target)) return target;
    double step = hi - lo;
    for (int i = 0; i < 2100 && f(lo) > target; ++i) lo -= (step *= 2);
    step = hi - lo;
    for (int i = 0; i < 2100 && f(hi) < target; ++i) hi += (step *= 2);
    for (int i = 0; i < 2100; ++i) {
        const double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi) break;
        (f(mid) < target ? lo : hi) = mid;
    }
    // The closer of the two ends.
    return std::abs(f(lo) - target) <= std::abs(f(hi) - target) ? lo : hi;
}

// Hyperlog (Gating-ML 2.0): y with EH(y) = x, EH(y) = a e^{by} + c y - f above x1 and
// antisymmetric about x1 below it.
struct Hyperlog {
    double a = 0, b = 0, c = 0, f = 0, x1 = 0;
    explicit Hyperlog(const GateScale& s) {
        const double w = s.W / (s.M + s.A), x2 = s.A / (s.M + s.A);
        x1 = x2 + w;
        const double x0 = x2 + 2 * w;
        b = (s.M + s.A) * kLn10;
        const double ca = std::exp(b * x0) / w;
        const double fa = std::exp(b * x1) + ca * x1;
        a = s.T / (std::exp(b) + ca - fa);
        c = ca * a;
        f = fa * a;
    }
    double eh(double y) const {
        if (y >= x1) return a * std::exp(b * y) + c * y - f;
        return -(a * std::exp(b * (2 * x1 - y)) + c * (2 * x1 - y) - f);
    }
    double scale(double x) const {
        return increasingRoot([this](double y) { return eh(y); }, x, 0.0, 1.0);
    }
};

// FlowJo's biex: data value at channel position t (0 at channel 0, 1 past the last of
// `length` channels) is min * (e^{t p} - s e^{-t r}) less its value at the zero channel,
// antisymmetric about the zero channel, where p spans the positive decades and r is the
// negative range that makes the curve's second derivative vanish at the zero channel (the
// logicle condition). FlowJo rounds the zero channel to a whole channel and stretches the
// decades to fit; the same is done here, so values match FlowJo's own table.
struct Biex {
    double minimum = 0, p = 0, r = 0, s = 0, zero = 0, offset = 0;
    explicit Biex(const GateScale& g) {
        const double range = g.length;
        const double w = std::log10(-g.width);
        double decades = g.pos - w / 2;
        const double extra = std::max(g.neg, 0.0) + w / 2;
        double zeroChannel = std::floor(extra * range / (extra + decades));
        zeroChannel = std::min(zeroChannel, std::floor(range / 2));
        if (zeroChannel > 0) decades = extra * range / zeroChannel;
        const double halfWidth = w / (2 * decades);
        p = kLn10 * decades;
        minimum = g.maxRange / std::exp(p);
        // r solves 2 (ln r - ln p) + halfWidth (p + r) = 0, increasing in r on (0, p].
        r = increasingRoot(
            [&](double d) {
                return d <= 0 ? -1e300 : 2 * (std::log(d) - std::log(p)) + halfWidth * (p + d);
            },
            0.0, 1e-300, p);
        s = std::exp((p + r) * (halfWidth + extra / decades));
        zero = zeroChannel / (range + 1);
        offset = raw(zero);
    }
    double raw(double t) const { return std::exp(t * p) - s * std::exp(-t * r); }
    double inverse(double t) const {
        if (t >= zero) return minimum * (raw(t) - offset);
        return -minimum * (raw(2 * zero - t) - offset);
    }
    double scale(double x) const {
        return increasingRoot([this](double t) { return inverse(t); }, x, 0.0, 1.0);
    }
};

}  // namespace

struct ScaleFunction::Solved {
    std::optional<Logicle> logicle;
    std::optional<Hyperlog> hyperlog;
    std::optional<Biex> biex;
};

const char* scaleKindName(GateScale::Kind kind) {
    switch (kind) {
        case GateScale::Kind::None:
            return "none";
        case GateScale::Kind::Linear:
            return "flin";
        case GateScale::Kind::Log:
            return "flog";
        case GateScale::Kind::Asinh:
            return "fasinh";
        case GateScale::Kind::Logicle:
            return "logicle";
        case GateScale::Kind::Hyperlog:
            return "hyperlog";
        case GateScale::Kind::Biex:
            return "biex";
    }
    return "?";
}

std::vector<std::pair<const char*, double>> scaleParameters(const GateScale& s) {
    switch (s.kind) {
        case GateScale::Kind::None:
            return {};
        case GateScale::Kind::Linear:
            return {{"T", s.T}, {"A", s.A}};
        case GateScale::Kind::Log:
            return {{"T", s.T}, {"M", s.M}};
        case GateScale::Kind::Asinh:
            return {{"T", s.T}, {"M", s.M}, {"A", s.A}};
        case GateScale::Kind::Logicle:
        case GateScale::Kind::Hyperlog:
            return {{"T", s.T}, {"W", s.W}, {"M", s.M}, {"A", s.A}};
        case GateScale::Kind::Biex:
            return {{"length", s.length},
                    {"maxRange", s.maxRange},
                    {"neg", s.neg},
                    {"pos", s.pos},
                    {"width", s.width}};
    }
    return {};
}

void validateScale(const GateScale& s, const std::string& where) {
    auto fail = [&](const std::string& what) {
        throw InputError(where + ": " + scaleKindName(s.kind) + " " + what);
    };
    auto finite = [&](double v, const char* name) {
        if (!std::isfinite(v)) fail(std::string(name) + " is not finite");
    };
    for (auto [v, n] : {std::pair{s.T, "T"}, {s.W, "W"}, {s.M, "M"}, {s.A, "A"}}) finite(v, n);
    using K = GateScale::Kind;
    switch (s.kind) {
        case K::None:
            return;
        case K::Linear:
            if (!(s.T > 0)) fail("needs T > 0 (T = " + number(s.T) + ")");
            if (!(s.A >= 0 && s.A <= s.T))
                fail("needs 0 <= A <= T (A = " + number(s.A) + ", T = " + number(s.T) + ")");
            return;
        case K::Log:
            if (!(s.T > 0) || !(s.M > 0))
                fail("needs T > 0 and M > 0 (T = " + number(s.T) + ", M = " + number(s.M) + ")");
            return;
        case K::Asinh:
            if (!(s.T > 0) || !(s.M > 0))
                fail("needs T > 0 and M > 0 (T = " + number(s.T) + ", M = " + number(s.M) + ")");
            if (!(s.A >= 0 && s.A <= s.M)) fail("needs 0 <= A <= M (A = " + number(s.A) + ")");
            return;
        case K::Logicle:
        case K::Hyperlog:
            if (!(s.T > 0) || !(s.M > 0) || !(s.W >= 0) || !(2 * s.W <= s.M) || !(s.A >= -s.W) ||
                !(s.A <= s.M - 2 * s.W))
                fail("needs T > 0, M > 0, 0 <= W <= M/2 and -W <= A <= M - 2W (T = " + number(s.T) +
                     ", W = " + number(s.W) + ", M = " + number(s.M) + ", A = " + number(s.A) +
                     ")");
            if (s.kind == K::Hyperlog && !(s.W > 0)) fail("needs W > 0");
            return;
        case K::Biex:
            for (auto [v, n] : {std::pair{s.length, "length"},
                                {s.maxRange, "maxRange"},
                                {s.neg, "neg"},
                                {s.pos, "pos"},
                                {s.width, "width"}})
                finite(v, n);
            if (!(s.length >= 2) || !(s.maxRange > 0) || !(s.pos > 0) || !(s.width < -1))
                fail("needs length >= 2, maxRange > 0, pos > 0 and width < -1 (length = " +
                     number(s.length) + ", maxRange = " + number(s.maxRange) +
                     ", pos = " + number(s.pos) + ", width = " + number(s.width) + ")");
            return;
    }
}

ScaleFunction::ScaleFunction(const GateScale& scale)
    : m_scale(scale), m_solved(std::make_unique<Solved>()) {
    validateScale(scale, "gate scale");
    switch (scale.kind) {
        case GateScale::Kind::Logicle:
            m_solved->logicle.emplace(LogicleParams{scale.T, scale.W, scale.M, scale.A});
            break;
        case GateScale::Kind::Hyperlog:
            m_solved->hyperlog.emplace(scale);
            break;
        case GateScale::Kind::Biex:
            m_solved->biex.emplace(scale);
            break;
        default:
            break;
    }
}

ScaleFunction::~ScaleFunction() = default;
ScaleFunction::ScaleFunction(ScaleFunction&&) noexcept = default;
ScaleFunction& ScaleFunction::operator=(ScaleFunction&&) noexcept = default;

double ScaleFunction::operator()(double x) const {
    const GateScale& s = m_scale;
    switch (s.kind) {
        case GateScale::Kind::None:
            return x;
        case GateScale::Kind::Linear:
            return (x + s.A) / (s.T + s.A);
        case GateScale::Kind::Log:
            return x > 0 ? std::log10(x / s.T) / s.M + 1 : kNaN;
        case GateScale::Kind::Asinh:
            return (std::asinh(x * std::sinh(s.M * kLn10) / s.T) + s.A * kLn10) /
                   ((s.M + s.A) * kLn10);
        case GateScale::Kind::Logicle:
            return m_solved->logicle->scale(x);
        case GateScale::Kind::Hyperlog:
            return m_solved->hyperlog->scale(x);
        case GateScale::Kind::Biex:
            return m_solved->biex->scale(x);
    }
    return kNaN;
}

double ScaleFunction::inverse(double y) const {
    const GateScale& s = m_scale;
    switch (s.kind) {
        case GateScale::Kind::None:
            return y;
        case GateScale::Kind::Linear:
            return y * (s.T + s.A) - s.A;
        case GateScale::Kind::Log:
            return s.T * std::pow(10.0, (y - 1) * s.M);
        case GateScale::Kind::Asinh:
            return std::sinh(y * (s.M + s.A) * kLn10 - s.A * kLn10) * s.T / std::sinh(s.M * kLn10);
        case GateScale::Kind::Logicle:
            return m_solved->logicle->inverse(y);
        case GateScale::Kind::Hyperlog:
            return m_solved->hyperlog->eh(y);
        case GateScale::Kind::Biex:
            return m_solved->biex->inverse(y);
    }
    return kNaN;
}

void ScaleFunction::apply(std::vector<double>& values) const {
    if (m_scale.kind == GateScale::Kind::None) return;
#pragma omp parallel for schedule(static) if (values.size() > 65536)
    for (size_t i = 0; i < values.size(); ++i) values[i] = (*this)(values[i]);
}

}  // namespace sepal
