#pragma once
// The stable Leaky LP cell of a 2-D LSTM ("No Padding Please", after Voigtlaender et al.): the
// one place its maths lives, so that a future graph-drawn 2-D recurrence can reuse it.
//
// Per cell, with a cell state from the left (cL) and from above (cU):
//   i = sig(a_i), f = sig(a_f), o = sig(a_o), l = sig(a_l), z = tanh(a_z)
//   s = l * cL + (1 - l) * cU          lambda gate: a convex mix of the two predecessors
//   c = f * s + (1 - f) * i * z        leaky: a convex mix of the past and the new input
//   h = o * tanh(c)
// Both mixes are convex, so |c| <= 1 whatever the image size: the state cannot grow the way a
// plain 2-D LSTM's c = f1 cL + f2 cU + i z can (up to doubling along every diagonal).
namespace rnnwb::mdlstm {

/// Gates in a pre-activation row of 5n floats: [i | f | o | l | z], n each.
inline constexpr int kGateCount = 5;
enum Gate { kInput = 0, kForget = 1, kOutput = 2, kLambda = 3, kCandidate = 4 };

/// Forward for `count` cells of `n` units. gates: count x 5n, pre-activations on entry,
/// activations on return (kept for backward). cLeft, cUp: count x n, or nullptr for zero.
/// Writes c and h (count x n).
void leakyLpForward(int count, int n, float* gates, const float* cLeft, const float* cUp, float* c,
                    float* h);

/// Backward for the same cells. gates and c as forward left them; cLeft / cUp as in forward.
/// dh: gradient of the loss with respect to h; dc: with respect to c through later cells
/// (both count x n; dc is read only). Writes dPre (count x 5n, gradient with respect to the
/// pre-activations) and adds to dcLeft / dcUp (count x n, may be nullptr) the gradient flowing
/// to the predecessors' cell states.
void leakyLpBackward(int count, int n, const float* gates, const float* cLeft, const float* cUp,
                     const float* c, const float* dh, const float* dc, float* dPre, float* dcLeft,
                     float* dcUp);

}  // namespace rnnwb::mdlstm
