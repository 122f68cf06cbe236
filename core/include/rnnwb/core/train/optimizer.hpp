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

/// An optimizer for `parameterCount` parameters. Throws std::invalid_argument for settings out of
/// range (negative momentum, beta outside [0, 1), epsilon <= 0).
std::unique_ptr<Optimizer> makeOptimizer(const OptimizerSettings& settings,
                                         std::size_t parameterCount);

/// The Euclidean norm of a buffer, accumulated in double.
double l2Norm(std::span<const float> values);
/// Scales grads so that their norm is at most maxNorm (no change when maxNorm <= 0, i.e. off).
/// Returns the norm before clipping.
double clipGradientNorm(std::span<float> grads, double maxNorm);

}  // namespace rnnwb::train
