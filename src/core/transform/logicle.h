#pragma once
// The logicle display scale (Parks, Roederer and Moore 2006; Moore and Parks 2012): linear near
// zero, logarithmic for large values, defined as the inverse of a biexponential function.

#include <array>

namespace sepal {

/// Logicle parameters: T top of scale (data units), W linearisation width, M total and A extra
/// negative decades (all in decades). Valid when T > 0, M > 0, 0 <= W <= M / 2, -W <= A <= M - 2W.
struct LogicleParams {
    double T = 262144.0;  ///< data value shown at the top of the scale (scale 1)
    double W = 0.5;       ///< decades of (roughly) linear display around zero
    double M = 4.5;       ///< decades of the whole display
    double A = 0.0;       ///< additional decades of negative display
};

/// The logicle scale for one parameter set: scale() maps data to display units (0 to 1 over the
/// nominal range, data zero at (W + A) / (M + A)); inverse() maps back.
class Logicle {
  public:
    /// Solves the biexponential's constants; throws InputError naming the offending parameter.
    explicit Logicle(const LogicleParams& params);

    /// Display position of data value `value` (NaN stays NaN, infinities stay infinite).
    double scale(double value) const;
    /// Data value at display position `position` (the biexponential).
    double inverse(double position) const;
    /// Display position of data zero.
    double zero() const { return m_x1; }

  private:
    double biexponential(double y) const;  // y >= x1 only
    double slopeAt(double y) const;
    double curvatureAt(double y) const;

    double m_a = 0, m_b = 0, m_c = 0, m_d = 0, m_f = 0;
    double m_x1 = 0;
    double m_seriesLimit = 0;           // |y - x1| below which the Taylor series is used
    std::array<double, 16> m_series{};  // Taylor coefficients of the biexponential about x1
};

}  // namespace sepal
