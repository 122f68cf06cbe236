// The CPU engine's backward around the op program's regions (cpu_op_binder.cpp): the losses'
// gradients into dy, the dy rows that no first writer overwrites zeroed, and every node's
// parameter gradients (its program's gradient region) as one product or sum over all frames of
// the chunk, split among the workers.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "cpu_engine.hpp"
#include "rnnwb/core/engine/activation_math.hpp"

namespace rnnwb {

RNNWB_VECTOR_CLONES void CpuBackend::Engine::startBackward() {
  // mse: dL/dy = y - target on the predicted frames. cross_entropy's y - onehot goes straight to
  // ds in finishLayerBackward.
  // Under backwardFromOutputs every output's dL/dy is the caller's.
  const auto& outputs = m_plan.outputLayers();
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const int l = outputs[o];
    if (m_outputGradients) {
      const std::size_t row = static_cast<std::size_t>(m_streams) * m_layers[l].size;
      const auto given = (*m_outputGradients)[o].f32();
      const std::size_t first = m_batch->firstPredictedFrame * row;
      std::copy(given.begin() + first, given.end(), dy(l, 0) + first);
      continue;
    }
    if (m_plan.graph().layers[l].loss != LossKind::Mse) continue;
    const auto targets = m_batch->targets[o].f32();
    const std::size_t row = static_cast<std::size_t>(m_streams) * m_layers[l].size;
    const std::size_t first = m_batch->firstPredictedFrame * row;
    const std::size_t last = static_cast<std::size_t>(m_frames) * row;
    const float* out = y(l, 0);
    float* grad = dy(l, 0);
    for (std::size_t i = first; i < last; ++i) grad[i] = out[i] - targets[i];
  }
}

void CpuBackend::Engine::clearGradients() {
  m_pool.run([&](int worker) {
    for (std::size_t l = 0; l < m_layers.size(); ++l) {
      LayerBuffers& b = m_layers[l];
      const int frames = m_program.gradientClearFrames[l];
      // Input layers' dy is never touched unless their gradients are asked for (then every
      // writer adds into it: cleared whole); every other layer's carried rows are cleared, since
      // delayed writers add into them (nothing reads them, but stale sums would grow chunk by
      // chunk).
      const bool input = m_plan.graph().layers[l].isInput();
      if (b.size == 0 || (input && !m_programInputGradients)) continue;
      const std::size_t frameRows = static_cast<std::size_t>(m_streams);
      const std::size_t carriedRows = b.delay * frameRows;
      const std::size_t allRows = b.dy.size() / b.size;
      // The carried rows, then the last `frames` frames (or all of them).
      const std::size_t lastFrom =
          frames < 0 ? carriedRows : allRows - std::min(allRows - carriedRows, frames * frameRows);
      const auto clear = [&](std::size_t from, std::size_t to) {
        const auto [first, count] = part(static_cast<int>(to - from), worker);
        std::fill_n(b.dy.data() + (from + first) * b.size, static_cast<std::size_t>(count) * b.size,
                    0.0f);
      };
      clear(0, carriedRows);
      clear(lastFrom, allRows);
    }
  });
}

void CpuBackend::Engine::parameterGradients(std::size_t node, float* gradients) {
  const std::vector<op::Op>& ops = m_program.nodes[node].gradients;
  if (ops.empty()) return;
  // Each worker computes its part of every bias and weight gradient over all frames of the chunk:
  // no two workers write one parameter, and no sum is split among them.
  m_pool.run([&](int worker) { parameterGradientPart(ops, gradients, worker); });
}

RNNWB_VECTOR_CLONES void CpuBackend::Engine::parameterGradientPart(const std::vector<op::Op>& ops,
                                                                   float* gradients, int worker) {
  const int rows = m_frames * m_streams;
  // Sums over the rows go to a buffer of this worker's own: adding into the gradients row by row
  // would have two workers write one cache line where their parts meet, 2 * T * N times.
  std::vector<float> sums;
  const auto addSums = [&](float* out, int first) {
    for (std::size_t i = 0; i < sums.size(); ++i) out[first + i] += sums[i];
  };
  for (const op::Op& op : ops) {
    // This worker's units: its rows of dW = dz^T x, its entries of the sums.
    const auto [first, count] = part(op.units, worker);
    const float* grad = bind(op.a).base;
    float* out = gradients + op.weights;
    if (op.kind == op::Kind::WeightGradient) {
      gemm(true, false, count, op.inner, rows, grad + first, op.units, bind(op.b).base, op.inner,
           1.0f, out + static_cast<std::size_t>(first) * op.inner, op.inner);
      continue;
    }
    sums.assign(count, 0.0f);
    float* __restrict acc = sums.data();
    if (op.kind == op::Kind::BiasGradient) {
      for (int r = 0; r < rows; ++r) {
        const float* row = grad + static_cast<std::size_t>(r) * op.units + first;
        for (int i = 0; i < count; ++i) acc[i] += row[i];
      }
    } else {  // DiagonalWeightGradient
      const float* source = bind(op.b).base;
      for (int r = 0; r < rows; ++r) {
        const std::size_t row = static_cast<std::size_t>(r) * op.units + first;
        for (int i = 0; i < count; ++i) acc[i] += grad[row + i] * source[row + i];
      }
    }
    addSums(out, first);
  }
}

void CpuBackend::Engine::reportFinalGradients(std::size_t n, std::span<const float> mask,
                                              ParameterSet& gradients) {
  const op::NodeProgram& node = m_program.nodes[n];
  // parameterGradients wrote the node's biases and incoming weights once, over all frames: they
  // are final. The mask is applied here too (run() applies it to all at the end again).
  std::vector<GradientRange> ranges;
  const auto add = [&](const ParameterView* view) {
    if (!view) return;
    float* values = gradients.values().data();
    for (std::size_t i = view->offset; i < view->offset + view->size && i < mask.size(); ++i)
      if (mask[i] == 0.0f) values[i] = 0.0f;
    ranges.push_back({view->offset, view->size});
  };
  if (node.computes)
    for (int layer : node.layers) {
      add(m_layout->layerBias(layer));
      for (int c : m_plan.anterior(layer)) add(m_layout->connectionWeight(c));
    }
  if (!ranges.empty()) gradientListener->gradientsFinal(ranges);
}

}  // namespace rnnwb
