#include "grid_losses.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "rnnwb/core/engine/activation_math.hpp"
#include "rnnwb/core/mdlstm/ctc_loss.hpp"

namespace rnnwb::grid {
namespace {

// The position's index in a target at the output's grid (row by row).
std::size_t cellOf(const Position& p, const GridExtent& extent) {
  return static_cast<std::size_t>(p.y) * extent.width + p.x;
}

void positionLosses(const CompiledPlan& plan, int output, int layer, const ExampleBatch& batch,
                    const GridRows& rows, LayerBuffers& b, bool gradients,
                    std::vector<double>& losses) {
  const Layer& spec = plan.graph().layers[layer];
  const NodeRows& node = rows.node(rows.nodeOfLayer(layer));
  const int size = b.size;
  for (int r = 0; r < node.rows(); ++r) {
    const Position& p = node.positions[r];
    const Tensor& target = batch.examples[p.example].targets[output];
    const std::size_t cell = cellOf(p, rows.extent(layer, p.example));
    const std::size_t at = static_cast<std::size_t>(r) * size;
    if (spec.loss == LossKind::CrossEntropy) {
      const int cls = static_cast<int>(target.i64()[cell]);
      losses[p.example] += math::crossEntropyFromLogits(b.s.data() + at, size, cls);
      if (!gradients) continue;
      for (int u = 0; u < size; ++u) b.lossGrad[at + u] = b.y[at + u];
      b.lossGrad[at + cls] -= 1.0f;
      continue;
    }
    const float* want = target.f32().data() + cell * size;  // mse: ½‖y − target‖²
    for (int u = 0; u < size; ++u) {
      const double diff = static_cast<double>(b.y[at + u]) - want[u];
      losses[p.example] += 0.5 * diff * diff;
      if (gradients) b.dy[at + u] = b.y[at + u] - want[u];
    }
  }
}

void ctcLosses(const CompiledPlan& plan, int output, int layer, const ExampleBatch& batch,
               const GridRows& rows, LayerBuffers& b, bool gradients, std::vector<double>& losses) {
  const Layer& spec = plan.graph().layers[layer];
  const int size = b.size;
  for (std::size_t e = 0; e < batch.examples.size(); ++e) {
    const int example = static_cast<int>(e);
    const int frames = rows.extent(layer, example).width;
    std::vector<float> logits(static_cast<std::size_t>(frames) * size);
    for (int t = 0; t < frames; ++t) {
      const float* s =
          b.s.data() + static_cast<std::ptrdiff_t>(rows.rowAt(layer, example, t, 0)) * size;
      std::copy(s, s + size, logits.begin() + static_cast<std::ptrdiff_t>(t) * size);
    }
    const auto labels64 = batch.examples[e].targets[output].i64();
    const std::vector<int> labels(labels64.begin(), labels64.end());
    const mdlstm::CtcResult result = mdlstm::ctcLoss(logits, frames, size, labels);
    if (!std::isfinite(result.loss)) {
      int repeats = 0;
      for (std::size_t i = 1; i < labels.size(); ++i) repeats += labels[i] == labels[i - 1];
      throw std::invalid_argument(
          "example " + std::to_string(e) + ": its " + std::to_string(labels.size()) +
          " labels (with " + std::to_string(repeats) + " repeated neighbours) need " +
          std::to_string(labels.size() + repeats) + " frames, and layer '" + spec.id + "' has " +
          std::to_string(frames) + ": no alignment exists for the ctc loss");
    }
    losses[e] += result.loss;
    if (!gradients) continue;
    for (int t = 0; t < frames; ++t)
      std::copy_n(result.gradient.begin() + static_cast<std::ptrdiff_t>(t) * size, size,
                  b.lossGrad.begin() +
                      static_cast<std::ptrdiff_t>(rows.rowAt(layer, example, t, 0)) * size);
  }
}

}  // namespace

std::vector<double> computeLosses(const CompiledPlan& plan, const ExampleBatch& batch,
                                  const GridRows& rows, GridBinder& binder, bool gradients) {
  std::vector<double> losses(batch.examples.size(), 0.0);
  const auto& outputs = plan.outputLayers();
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const int layer = outputs[o];
    LayerBuffers& b = binder.layer(layer);
    if (plan.graph().layers[layer].loss == LossKind::Ctc)
      ctcLosses(plan, static_cast<int>(o), layer, batch, rows, b, gradients, losses);
    else
      positionLosses(plan, static_cast<int>(o), layer, batch, rows, b, gradients, losses);
  }
  return losses;
}

}  // namespace rnnwb::grid
