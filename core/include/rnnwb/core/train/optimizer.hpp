#pragma once
// Optimizers on one flat float buffer of parameters and its gradient buffer (same length, same
// order). The caller owns both buffers; an optimizer owns only its state, which it can hand out
// and take back exactly (for checkpoints).
//
// SGD with momentum (the PyTorch form):  v <- mu*v + g;  p <- p - lr*v.
// Adam (Kingma & Ba, with bias correction):
//   m <- b1*m + (1-b1)*g;  v <- b2*v + (1-b2)*g^2;  t <- t+1
//   p <- p - lr * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)
// A parameter whose gradient is always 0 (a weight a mask removes) never moves under either.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rnnwb::train {

enum class OptimizerKind { Sgd, Adam };
std::string_view toString(OptimizerKind kind);  // "sgd", "adam"

struct OptimizerSettings {
  OptimizerKind kind = OptimizerKind::Adam;
  double learningRate = 1e-3;
  double momentum = 0.9;  // SGD only; 0 gives plain SGD
  double beta1 = 0.9;     // Adam only
  double beta2 = 0.999;
  double epsilon = 1e-8;
  bool operator==(const OptimizerSettings&) const = default;
};

/// An optimizer's state: named buffers of the parameters' length, plus its update count.
struct OptimizerState {
  std::vector<std::pair<std::string, std::vector<float>>> buffers;  // e.g. {"m", ...}, {"v", ...}
  std::int64_t updates = 0;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  /// One update of params with grads at the given learning rate. Throws when the lengths differ
  /// from the one the optimizer was made for.
  virtual void step(std::span<float> params, std::span<const float> grads, double learningRate) = 0;
  /// Forgets everything learnt about the gradients (momentum, moments, update count).
  virtual void reset() = 0;
  virtual OptimizerState state() const = 0;
  /// Restores a state from state(); throws naming the buffer when names or lengths do not match.
  virtual void restore(const OptimizerState& state) = 0;
  virtual OptimizerKind kind() const = 0;
};

/// The scalars of Adam's update number `update` (1 for the first) at a learning rate. Both bias
/// corrections are folded into the step size and epsilon, the form PyTorch uses:
///   p <- p - stepSize * m / (sqrt(v) / rootC2 + eps),
///   stepSize = lr / (1 - b1^t),  rootC2 = sqrt(1 - b2^t).
struct AdamStepSizes {
  float beta1, beta2, stepSize, rootC2, epsilon;
};
inline AdamStepSizes adamStepSizes(const OptimizerSettings& s, double learningRate,
                                   std::int64_t update) {
  const double t = static_cast<double>(update);
  const double c1 = 1.0 - std::pow(s.beta1, t), c2 = 1.0 - std::pow(s.beta2, t);
  return {static_cast<float>(s.beta1), static_cast<float>(s.beta2),
          static_cast<float>(learningRate / c1), static_cast<float>(std::sqrt(c2)),
          static_cast<float>(s.epsilon)};
}

/// Adam's update of n parameters p with their gradients g and moments m, v (the formula at the
/// top). Header-only, so that one copy serves the Adam of makeOptimizer and the word recogniser's
/// training step (rnnwb_mdlstm: rnnwb_train links it, so it cannot link rnnwb_train). The four
/// buffers may not overlap; where built with -fno-math-errno the loop vectorizes (v >= 0, so sqrt
/// never sets errno), and vector sqrt and division round as the scalar ones do.
inline void adamUpdate(float* __restrict p, const float* __restrict g, float* __restrict m,
                       float* __restrict v, std::size_t n, const AdamStepSizes& k) {
  const float b1 = k.beta1, b2 = k.beta2, stepSize = k.stepSize, rootC2 = k.rootC2;
  const float eps = k.epsilon;
  for (std::size_t i = 0; i < n; ++i) {
    const float gradient = g[i];
    m[i] = b1 * m[i] + (1.0f - b1) * gradient;
    v[i] = b2 * v[i] + (1.0f - b2) * gradient * gradient;
    p[i] -= stepSize * m[i] / (std::sqrt(v[i]) / rootC2 + eps);
  }
}

/// An optimizer for `parameterCount` parameters. Throws std::invalid_argument for settings out of
/// range (negative momentum, beta outside [0, 1), epsilon <= 0).
std::unique_ptr<Optimizer> makeOptimizer(const OptimizerSettings& settings,
                                         std::size_t parameterCount);

/// The Euclidean norm of a buffer, accumulated in double (in eight partial sums).
double l2Norm(std::span<const float> values);
/// Scales grads so that their norm is at most maxNorm (no change when maxNorm <= 0, i.e. off).
/// Returns the norm before clipping.
double clipGradientNorm(std::span<float> grads, double maxNorm);

}  // namespace rnnwb::train
