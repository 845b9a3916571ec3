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

/// Up to this a_max * c_uv the CUDA kernels keep the O(1) form past kExactRatio with each
/// distance's rounding residual r (its difference form in double less its float): D - 0.5 =
/// ((a_u - a_v) + (r_u - r_v)) c_uv, where a_u - a_v is exact in float (Sterbenz) whenever the
/// pair's weight does not underflow to 0. D is then off by at most about d 2^-46 times the
/// ratio (the residuals' own rounding to float; 4e-6 at d = 64 and 2^22) where the float form
/// is off by about d 2^-24 times it. Beyond it they take the reference form: there the
/// reference's own D is noise of its roundings (about d 2^-24 sqrt(2 ratio)) that only its
/// roundings reproduce. The form, emulated on the CPU on landmarks crowded 4e-5 to 2e-4 apart,
/// kept embedsom.md's tolerance with limits up to 2^24 and missed it at 2^25 (1e-4 and 6e-5
/// apart: 1.25e-4 and 1.6e-4 of the extent); 2^22 leaves a factor of 4. Trained
/// landmarks crowd (a SOM pulls map neighbours together), and then most cells have such pairs: the
/// reference form's O(d) per pair made a training frame at 10^8 cells 200-2100 ms where an
/// untrained model's took 81 (GPU_NOTES.md).
constexpr float kResidualRatio = 4194304.0f;  // 2^22

}  // namespace sepal
