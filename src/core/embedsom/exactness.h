#pragma once
// The thresholds at which every backend leaves its fast arithmetic for the reference's, shared by
// the CPU and the CUDA kernels (plain constants, so that device code includes this too).

namespace sepal {

/// Above this conditioning of the 2x2 system (a00 a11 / det) a point is solved again in the
/// reference's float arithmetic: roundings that differ from the reference's then move the
/// solution by more than the spec's tolerance, and only the same roundings in the same order
/// agree with it.
constexpr float kReferenceConditioning = 20.0f;

/// Above this a_max * c_uv (= a_max / (2 |L_u - L_v|^2)) the O(1) form of D loses digits to
/// cancellation (its error grows like float epsilon times the ratio): the reference form is used.
constexpr float kExactRatio = 64.0f;

}  // namespace sepal
