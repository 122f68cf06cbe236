#pragma once
// The element-wise maths of activations and losses, shared by the CPU engine and device code:
// everything here is marked RNNWB_HOST_DEVICE, which nvcc turns into __host__ __device__ and any
// other compiler into nothing. No standard-library containers, no exceptions.
#include <cmath>

#include "rnnwb/core/graph.hpp"

#if defined(__CUDACC__)
#define RNNWB_HOST_DEVICE __host__ __device__
#else
#define RNNWB_HOST_DEVICE
#endif

namespace rnnwb::math {

RNNWB_HOST_DEVICE inline float sigmoid(float s) {
  // Two branches so that exp never overflows to infinity for large |s|.
  if (s >= 0.0f) return 1.0f / (1.0f + expf(-s));
  const float e = expf(s);
  return e / (1.0f + e);
}

/// y = f(s) for every activation but softmax (which needs the whole vector).
RNNWB_HOST_DEVICE inline float activate(Activation a, float s) {
  switch (a) {
    case Activation::Sigmoid: return sigmoid(s);
    case Activation::Tanh: return tanhf(s);
    case Activation::Relu: return s > 0.0f ? s : 0.0f;
    default: return s;
  }
}

/// f'(s) expressed through y = f(s), for every activation but softmax.
RNNWB_HOST_DEVICE inline float derivativeFromOutput(Activation a, float y) {
  switch (a) {
    case Activation::Sigmoid: return y * (1.0f - y);
    case Activation::Tanh: return 1.0f - y * y;
    case Activation::Relu: return y > 0.0f ? 1.0f : 0.0f;
    default: return 1.0f;
  }
}

/// y = softmax(s) over n values (shifted by the maximum, so it never overflows).
RNNWB_HOST_DEVICE inline void softmax(const float* s, float* y, int n) {
  float top = s[0];
  for (int i = 1; i < n; ++i) top = s[i] > top ? s[i] : top;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    y[i] = expf(s[i] - top);
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
