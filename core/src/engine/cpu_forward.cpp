// The forward pass of the CPU engine: plain nodes over all frames at once, recurrent nodes frame
// by frame after their external inputs have been computed for all frames.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "cpu_engine.hpp"
#include "rnnwb/core/engine/activation_math.hpp"

namespace rnnwb {

RNNWB_VECTOR_CLONES void CpuBackend::Engine::initDestinations(int layer, Rows rows) {
  const Layer& spec = m_plan.graph().layers[layer];
  const std::size_t count = static_cast<std::size_t>(rows.count);
  if (spec.kind == LayerKind::Multiplicative) {
    for (int c : m_plan.anterior(layer)) {
      const cpu::ConnectionOp& op = m_program.connections[c];
      if (!readsSource(op) && !m_overwritesForward[c])
        std::fill_n(destination(op, rows.first), count * op.rows, 0.0f);
    }
    return;
  }
  if (!m_sumNeedsInit[layer]) return;  // its first connection writes it (planFirstWriters)
  float* sum = s(layer, rows.first);
  const ParameterView* bias = m_layout->layerBias(layer);
  if (!bias) {
    std::fill_n(sum, count * spec.size, 0.0f);
    return;
  }
  for (std::size_t r = 0; r < count; ++r)
    std::memcpy(sum + r * spec.size, m_params + bias->offset, sizeof(float) * spec.size);
}

RNNWB_VECTOR_CLONES void CpuBackend::Engine::forwardConnection(const cpu::ConnectionOp& op,
                                                               Rows rows) {
  if (readsSource(op)) return;  // the multiplicative layer reads the source's y in place
  const float* source = y(op.from, earlier(rows, op.delay).first);
  float* dest = destination(op, rows.first);
  const std::size_t count = static_cast<std::size_t>(rows.count) * op.rows;
  const bool first = m_overwritesForward[op.index];  // writes, instead of adding
  const float* bias = biasFirst(op);                 // or adds the bias first
  switch (op.type) {
    case ConnectionType::Full:
      gemm(false, true, rows.count, op.rows, op.cols, source, op.cols, weights(op), op.cols,
           first ? 0.0f : 1.0f, dest, op.rows);
      break;
    case ConnectionType::Diagonal: {
      const float* w = weights(op);
      for (int r = 0; r < rows.count; ++r)
        for (int i = 0; i < op.rows; ++i) {
          const int k = r * op.rows + i;
          const float before = first ? 0.0f : bias ? dest[k] + bias[i] : dest[k];
          dest[k] = before + w[i] * source[k];
        }
      break;
    }
    case ConnectionType::Identity:
      if (first)  // 0 + x, not a copy: the same floats as adding into zeros, -0 included
        for (std::size_t i = 0; i < count; ++i) dest[i] = 0.0f + source[i];
      else if (bias)
        for (int r = 0; r < rows.count; ++r)
          for (int i = 0; i < op.rows; ++i)
            dest[r * op.rows + i] = (dest[r * op.rows + i] + bias[i]) + source[r * op.rows + i];
      else
        for (std::size_t i = 0; i < count; ++i) dest[i] += source[i];
      break;
    case ConnectionType::Complement:
    case ConnectionType::Block:  // refused before an engine is built (engine_support.hpp)
      throw std::logic_error("the engines compute no complement or block connection yet");
  }
}

RNNWB_VECTOR_CLONES void CpuBackend::Engine::forwardGroup(const cpu::StackedGroup& group,
                                                          Rows rows) {
  if (group.connections.size() == 1) {
    forwardConnection(m_program.connections[group.connections.front()], rows);
    return;
  }
  // One product for every connection of the group, then each takes its columns.
  float* stack = stackRows(rows);
  gemm(false, true, rows.count, group.rows, group.cols,
       y(group.from, earlier(rows, group.delay).first), group.cols, m_params + group.weightOffset,
       group.cols, 0.0f, stack, group.rows);
  int column = 0;
  for (int c : group.connections) {
    const cpu::ConnectionOp& op = m_program.connections[c];
    float* dest = destination(op, rows.first);
    const bool first = m_overwritesForward[c];
    const float* bias = biasFirst(op);
    for (int r = 0; r < rows.count; ++r) {
      const float* part = stack + static_cast<std::size_t>(r) * group.rows + column;
      float* row = dest + static_cast<std::size_t>(r) * op.rows;
      if (first)
        for (int i = 0; i < op.rows; ++i) row[i] = 0.0f + part[i];
      else if (bias)
        for (int i = 0; i < op.rows; ++i) row[i] = (row[i] + bias[i]) + part[i];
      else
        for (int i = 0; i < op.rows; ++i) row[i] += part[i];
    }
    column += op.rows;
  }
}

RNNWB_VECTOR_CLONES void CpuBackend::Engine::finishLayer(int layer, Rows rows) {
  const Layer& spec = m_plan.graph().layers[layer];
  const std::size_t count = static_cast<std::size_t>(rows.count) * spec.size;
  float* sum = s(layer, rows.first);
  if (spec.kind == LayerKind::Multiplicative) {
    // The product of the factors in anterior order, the first two in one pass.
    const auto& anterior = m_plan.anterior(layer);
    const auto factor = [&](std::size_t k) {
      return static_cast<const float*>(destination(m_program.connections[anterior[k]], rows.first));
    };
    if (anterior.size() == 1) std::copy_n(factor(0), count, sum);
    if (anterior.size() >= 2) {
      const float *a = factor(0), *b = factor(1);
      for (std::size_t i = 0; i < count; ++i) sum[i] = a[i] * b[i];
    }
    for (std::size_t k = 2; k < anterior.size(); ++k) {
      const float* z = factor(k);
      for (std::size_t i = 0; i < count; ++i) sum[i] *= z[i];
    }
  }
  float* out = y(layer, rows.first);
  // One loop per activation, so that each vectorizes.
  switch (spec.activation) {
    case Activation::Softmax:
      for (int r = 0; r < rows.count; ++r)
        math::softmax(sum + static_cast<std::size_t>(r) * spec.size,
                      out + static_cast<std::size_t>(r) * spec.size, spec.size);
      break;
    case Activation::Sigmoid:
      for (std::size_t i = 0; i < count; ++i) out[i] = math::sigmoid(sum[i]);
      break;
    case Activation::Tanh:
      for (std::size_t i = 0; i < count; ++i) out[i] = math::tanhApprox(sum[i]);
      break;
    case Activation::Relu:
      for (std::size_t i = 0; i < count; ++i) out[i] = sum[i] > 0.0f ? sum[i] : 0.0f;
      break;
    default:
      if (sum != out) std::copy_n(sum, count, out);  // the same rows when sumIsOutput
  }
}

void CpuBackend::Engine::forwardSteps(const cpu::NodeOp& node, int firstStream, int streamCount) {
  for (int t = 0; t < m_frames; ++t) {
    const Rows rows{static_cast<std::ptrdiff_t>(t) * m_streams + firstStream, streamCount};
    for (const cpu::StackedGroup& group : node.delayedGroups) forwardGroup(group, rows);
    for (int c : node.delayedOther) forwardConnection(m_program.connections[c], rows);
    for (std::size_t p = 0; p < node.layers.size(); ++p) {
      finishLayer(node.layers[p], rows);
      for (const cpu::StackedGroup& group : node.zeroGroups[p]) forwardGroup(group, rows);
      for (int c : node.zeroOther[p]) forwardConnection(m_program.connections[c], rows);
    }
  }
}

void CpuBackend::Engine::forwardNode(const cpu::NodeOp& node) {
  if (m_plan.graph().layers[node.layers.front()].isInput()) return;  // loaded with the batch
  // The rows of a chunk are independent here: each worker computes its own, all frames at once.
  onRowParts([&](Rows rows) {
    for (int layer : node.layers) initDestinations(layer, rows);
    for (int c : node.external) forwardConnection(m_program.connections[c], rows);
    if (!node.recurrent) finishLayer(node.layers.front(), rows);
  });
  if (!node.recurrent) return;
  // Streams are independent inside a chunk: each worker steps its own through all frames.
  const std::size_t n = static_cast<std::size_t>(&node - m_program.nodes.data());
  if (m_options.fusedSteps)
    onStreamParts(
        [&](int worker, int first, int count) { runSteps(n, false, worker, first, count); });
  else
    inParallel([&](int first, int count) { forwardSteps(node, first, count); });
}

}  // namespace rnnwb
