#include "rnnwb/core/mdlstm/leaky_lp_cell.hpp"

#include <cmath>
#include <cstddef>

namespace rnnwb::mdlstm {
namespace {
inline float sigmoid(float a) { return 1.0f / (1.0f + std::exp(-a)); }
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
      const float z = g[kCandidate * n + u] = std::tanh(g[kCandidate * n + u]);
      const float cl = cLeft ? cLeft[row + u] : 0.0f;
      const float cu = cUp ? cUp[row + u] : 0.0f;
      const float s = l * cl + (1.0f - l) * cu;
      const float cell = f * s + (1.0f - f) * i * z;
      c[row + u] = cell;
      h[row + u] = o * std::tanh(cell);
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
      const float tc = std::tanh(c[row + u]);
      const float dcell = dc[row + u] + dh[row + u] * o * (1.0f - tc * tc);
      const float ds = dcell * f;
      d[kInput * n + u] = dcell * (1.0f - f) * z * i * (1.0f - i);
      d[kForget * n + u] = dcell * (s - i * z) * f * (1.0f - f);
      d[kOutput * n + u] = dh[row + u] * tc * o * (1.0f - o);
      d[kLambda * n + u] = ds * (cl - cu) * l * (1.0f - l);
      d[kCandidate * n + u] = dcell * (1.0f - f) * i * (1.0f - z * z);
      if (dcLeft) dcLeft[row + u] += ds * l;
      if (dcUp) dcUp[row + u] += ds * (1.0f - l);
    }
  }
}

}  // namespace rnnwb::mdlstm
