#pragma once
// The scales a gate's dimension is drawn in: Gating-ML 2.0's transformations (flin, flog,
// fasinh, logicle, hyperlog) and FlowJo's biex. A gate's coordinates are in its scale's units;
// an event is tested after its value went through the same scale.

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sepal {

/// One scale, as plain data (Gating-ML's parameter names).
struct GateScale {
    /// Which function maps a value to the gate's units.
    enum class Kind { None, Linear, Log, Asinh, Logicle, Hyperlog, Biex };
    Kind kind = Kind::None;  ///< None: the FCS scale value itself
    double T = 262144.0;     ///< top of scale (all but None and Biex)
    double W = 0.5;          ///< linear width in decades (logicle, hyperlog)
    double M = 4.5;          ///< decades (log, asinh, logicle, hyperlog)
    double A = 0.0;          ///< flin's offset, else extra negative decades
    // FlowJo's biex: channel range `length`, top `maxRange`, `neg` and `pos` decades and the
    // width basis `width` (negative, as FlowJo writes it).
    double length = 4096, maxRange = 262144, neg = 0, pos = 4.418539922, width = -10;
    /// Same function and parameters.
    bool operator==(const GateScale&) const = default;
};

/// Gating-ML's name of a kind ("flin", "flog", "fasinh", "logicle", "hyperlog", "biex", "none").
const char* scaleKindName(GateScale::Kind kind);

/// The parameters a kind uses, by Gating-ML's (or FlowJo's, for biex) names, in their order:
/// flin T A; flog T M; fasinh T M A; logicle and hyperlog T W M A; biex length maxRange neg
/// pos width; none nothing.
std::vector<std::pair<const char*, double>> scaleParameters(const GateScale& scale);

/// Checks the parameters as Gating-ML bounds them; throws InputError naming `where` and the value.
void validateScale(const GateScale& scale, const std::string& where);

/// A scale ready to evaluate: constants solved once.
class ScaleFunction {
  public:
    /// Solves the scale's constants; throws InputError when its parameters are out of bounds.
    explicit ScaleFunction(const GateScale& scale);
    ~ScaleFunction();
    ScaleFunction(ScaleFunction&&) noexcept;
    ScaleFunction& operator=(ScaleFunction&&) noexcept;

    /// The value in the scale's units (NaN where the function is undefined, as flog at x <= 0).
    double operator()(double value) const;
    /// The data value at `position` in the scale's units.
    double inverse(double position) const;
    /// The data values of one pass; in place.
    void apply(std::vector<double>& values) const;

  private:
    struct Solved;
    GateScale m_scale;
    std::unique_ptr<Solved> m_solved;
};

}  // namespace sepal
