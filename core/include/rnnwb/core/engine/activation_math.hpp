#pragma once
// The element-wise maths of activations and losses, shared by the CPU engine and device code:
// everything here is marked RNNWB_HOST_DEVICE, which nvcc turns into __host__ __device__ and any
// other compiler into nothing. No standard-library containers, no exceptions.
#include <cmath>

#include "rnnwb/core/layer_types.hpp"

#if defined(__CUDACC__)
#define RNNWB_HOST_DEVICE __host__ __device__
#else
#define RNNWB_HOST_DEVICE
#endif

namespace rnnwb::math {

/// e^x to about 2 ulp, from arithmetic only, so that a compiler vectorizes loops over it
/// (glibc's expf is a call per element). Cody-Waite range reduction x = n ln2 + r with Cephes'
/// polynomial for e^r; x is clamped to [-87.3, 88.3], so the result is always finite and normal
/// for finite x, and NaN stays NaN.
RNNWB_HOST_DEVICE inline float expApprox(float x) {
#if defined(__CUDA_ARCH__)
  return expf(x);
#else
  x = x < -87.3f ? -87.3f : (x > 88.3f ? 88.3f : x);
  // Round x / ln2 to the nearest integer n by adding 1.5 * 2^23: n then sits in the low bits.
  const float shifted = x * 1.44269504088896341f + 12582912.0f;
  const float n = shifted - 12582912.0f;
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * r * r + r + 1.0f;
  // 2^n from its exponent bits (n in [-126, 127] after the clamp); unsigned arithmetic, so a
  // NaN input is no undefined behaviour (its er is NaN whatever the scale).
  unsigned shiftedBits;
  __builtin_memcpy(&shiftedBits, &shifted, sizeof shiftedBits);
  const unsigned bits = (shiftedBits - 0x4B400000u + 127u) << 23;
  float scale;
  __builtin_memcpy(&scale, &bits, sizeof scale);
  return er * scale;
#endif
}

RNNWB_HOST_DEVICE inline float sigmoid(float s) { return 1.0f / (1.0f + expApprox(-s)); }

/// tanh through e^(-2|s|), with its Taylor series near 0 where 1 - e would lose digits.
RNNWB_HOST_DEVICE inline float tanhApprox(float s) {
  const float a = s < 0.0f ? -s : s;
  const float e = expApprox(-2.0f * a);
  const float t = (1.0f - e) / (1.0f + e);
  const float s2 = s * s;
  const float series =
      s * (1.0f + s2 * (-0.333333333f + s2 * (0.133333333f + s2 * -0.0539682540f)));
  return a < 0.125f ? series : (s < 0.0f ? -t : t);
}

/// y = f(s) for every activation but softmax (which needs the whole vector).
RNNWB_HOST_DEVICE inline float activate(Activation a, float s) {
  switch (a) {
    case Activation::Sigmoid:
      return sigmoid(s);
    case Activation::Tanh:
      return tanhApprox(s);
    case Activation::Relu:
      return s > 0.0f ? s : 0.0f;
    default:
      return s;
  }
}

/// f'(s) expressed through y = f(s), for every activation but softmax.
RNNWB_HOST_DEVICE inline float derivativeFromOutput(Activation a, float y) {
  switch (a) {
    case Activation::Sigmoid:
      return y * (1.0f - y);
    case Activation::Tanh:
      return 1.0f - y * y;
    case Activation::Relu:
      return y > 0.0f ? 1.0f : 0.0f;
    default:
      return 1.0f;
  }
}

/// y = softmax(s) over n values (shifted by the maximum, so it never overflows).
RNNWB_HOST_DEVICE inline void softmax(const float* s, float* y, int n) {
  float top = s[0];
  for (int i = 1; i < n; ++i) top = s[i] > top ? s[i] : top;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    y[i] = expApprox(s[i] - top);
    sum += y[i];
  }
  const float inv = 1.0f / sum;
  for (int i = 0; i < n; ++i) y[i] *= inv;
}

/// ds = J_softmax^T dy = y * (dy - <dy, y>), over n values; ds may not alias y.
RNNWB_HOST_DEVICE inline void softmaxBackward(const float* y, const float* dy, float* ds, int n) {
  float dot = 0.0f;
  for (int i = 0; i < n; ++i) dot += dy[i] * y[i];
  for (int i = 0; i < n; ++i) ds[i] = y[i] * (dy[i] - dot);
}

/// -log softmax(s)[target] = logsumexp(s) - s[target], from the pre-activations (accurate even
/// where the probability underflows). NaN or infinite inputs give a non-finite loss.
RNNWB_HOST_DEVICE inline double crossEntropyFromLogits(const float* s, int n, int target) {
  float top = s[0];
  for (int i = 1; i < n; ++i) top = s[i] > top ? s[i] : top;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += exp(static_cast<double>(s[i]) - top);
  return log(sum) + top - s[target];
}

}  // namespace rnnwb::math
