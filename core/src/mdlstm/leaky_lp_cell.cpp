#include "rnnwb/core/mdlstm/leaky_lp_cell.hpp"

#include <cstddef>

#include "rnnwb/core/engine/activation_math.hpp"

// The activations and their derivatives are the engine's (activation_math.hpp), so a 2-D LSTM
// computes tanh and the sigmoid as a graph's layers do. Backward takes every derivative from the
// output forward kept, and recomputes tanh(c) with the same function forward used.
namespace rnnwb::mdlstm {
namespace {
using math::sigmoid;
using math::tanhApprox;

float sigmoidSlope(float y) { return math::derivativeFromOutput(Activation::Sigmoid, y); }
float tanhSlope(float y) { return math::derivativeFromOutput(Activation::Tanh, y); }
}  // namespace

void leakyLpForward(int count, int n, float* gates, const float* cLeft, const float* cUp, float* c,
                    float* h) {
  for (int k = 0; k < count; ++k) {
    float* g = gates + static_cast<std::ptrdiff_t>(k) * kGateCount * n;
    const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(k) * n;
    for (int u = 0; u < n; ++u) {
      const float i = g[kInput * n + u] = sigmoid(g[kInput * n + u]);
      const float f = g[kForget * n + u] = sigmoid(g[kForget * n + u]);
      const float o = g[kOutput * n + u] = sigmoid(g[kOutput * n + u]);
      const float l = g[kLambda * n + u] = sigmoid(g[kLambda * n + u]);
      const float z = g[kCandidate * n + u] = tanhApprox(g[kCandidate * n + u]);
      const float cl = cLeft ? cLeft[row + u] : 0.0f;
      const float cu = cUp ? cUp[row + u] : 0.0f;
      const float s = l * cl + (1.0f - l) * cu;
      const float cell = f * s + (1.0f - f) * i * z;
      c[row + u] = cell;
      h[row + u] = o * tanhApprox(cell);
    }
  }
}

void leakyLpBackward(int count, int n, const float* gates, const float* cLeft, const float* cUp,
                     const float* c, const float* dh, const float* dc, float* dPre, float* dcLeft,
                     float* dcUp) {
  for (int k = 0; k < count; ++k) {
    const float* g = gates + static_cast<std::ptrdiff_t>(k) * kGateCount * n;
    float* d = dPre + static_cast<std::ptrdiff_t>(k) * kGateCount * n;
    const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(k) * n;
    for (int u = 0; u < n; ++u) {
      const float i = g[kInput * n + u], f = g[kForget * n + u], o = g[kOutput * n + u];
      const float l = g[kLambda * n + u], z = g[kCandidate * n + u];
      const float cl = cLeft ? cLeft[row + u] : 0.0f;
      const float cu = cUp ? cUp[row + u] : 0.0f;
      const float s = l * cl + (1.0f - l) * cu;
      const float tc = tanhApprox(c[row + u]);
      const float dcell = dc[row + u] + dh[row + u] * o * tanhSlope(tc);
      const float ds = dcell * f;
      d[kInput * n + u] = dcell * (1.0f - f) * z * sigmoidSlope(i);
      d[kForget * n + u] = dcell * (s - i * z) * sigmoidSlope(f);
      d[kOutput * n + u] = dh[row + u] * tc * sigmoidSlope(o);
      d[kLambda * n + u] = ds * (cl - cu) * sigmoidSlope(l);
      d[kCandidate * n + u] = dcell * (1.0f - f) * i * tanhSlope(z);
      if (dcLeft) dcLeft[row + u] += ds * l;
      if (dcUp) dcUp[row + u] += ds * (1.0f - l);
    }
  }
}

}  // namespace rnnwb::mdlstm
