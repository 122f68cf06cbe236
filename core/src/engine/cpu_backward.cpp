// The backward pass of the CPU engine: the schedule in reverse, recurrent nodes frame by frame
// from the last frame, then every weight gradient as one product over all frames of the chunk.
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

RNNWB_VECTOR_CLONES void CpuBackend::Engine::finishLayerBackward(int layer, Rows range) {
  const Layer& spec = m_plan.graph().layers[layer];
  const int size = spec.size;
  const std::size_t rows = static_cast<std::size_t>(range.count);
  const std::size_t count = rows * size;
  const float* out = y(layer, range.first);
  const float* grad = dy(layer, range.first);
  float* gradSum = ds(layer, range.first);
  if (spec.activation == Activation::Softmax) {
    for (std::size_t r = 0; r < rows; ++r)
      math::softmaxBackward(out + r * size, grad + r * size, gradSum + r * size, size);
  } else {
    switch (spec.activation) {  // one loop per activation, so that each vectorizes
      case Activation::Sigmoid:
        for (std::size_t i = 0; i < count; ++i) gradSum[i] = grad[i] * out[i] * (1.0f - out[i]);
        break;
      case Activation::Tanh:
        for (std::size_t i = 0; i < count; ++i) gradSum[i] = grad[i] * (1.0f - out[i] * out[i]);
        break;
      case Activation::Relu:
        for (std::size_t i = 0; i < count; ++i) gradSum[i] = out[i] > 0.0f ? grad[i] : 0.0f;
        break;
      default:
        if (grad != gradSum) std::copy_n(grad, count, gradSum);  // the same when sumIsOutput
    }
  }
  if (spec.loss == LossKind::CrossEntropy && !m_outputGradients) {
    const auto& outputs = m_plan.outputLayers();
    const auto o = std::find(outputs.begin(), outputs.end(), layer) - outputs.begin();
    const auto classes = m_batch->targets[o].i64();
    const std::ptrdiff_t firstPredicted =
        static_cast<std::ptrdiff_t>(m_batch->firstPredictedFrame) * m_streams;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::ptrdiff_t row = range.first + static_cast<std::ptrdiff_t>(r);
      if (row < firstPredicted) continue;
      for (int i = 0; i < size; ++i) gradSum[r * size + i] += out[r * size + i];
      gradSum[r * size + classes[row]] -= 1.0f;
    }
  }
  if (spec.kind != LayerKind::Multiplicative) return;
  // dz_m = ds * product of the other factors (no division: factors may be 0).
  const auto& anterior = m_plan.anterior(layer);
  for (int c : anterior) {
    float* gradZ = destinationGrad(m_program.connections[c], range.first);
    bool first = true;  // the first other factor multiplies ds on its way into dz
    for (int other : anterior) {
      if (other == c) continue;
      const float* z = destination(m_program.connections[other], range.first);
      if (first)
        for (std::size_t i = 0; i < count; ++i) gradZ[i] = gradSum[i] * z[i];
      else
        for (std::size_t i = 0; i < count; ++i) gradZ[i] *= z[i];
      first = false;
    }
    if (first) std::copy_n(gradSum, count, gradZ);  // one factor only
  }
}

RNNWB_VECTOR_CLONES void CpuBackend::Engine::backwardConnection(const cpu::ConnectionOp& op,
                                                                Rows range) {
  // Nothing upstream of an input layer needs its gradient.
  if (m_plan.graph().layers[op.from].isInput()) return;
  const int rows = range.count;
  const float* grad = destinationGrad(op, range.first);
  float* sourceGrad = dy(op.from, earlier(range, op.delay).first);
  // The first writer of these dy rows writes 0 + x (planFirstWriters): the floats of adding into
  // cleared rows, -0 included.
  const bool first = m_overwritesBackward[op.index];
  const std::size_t count = static_cast<std::size_t>(rows) * op.rows;
  switch (op.type) {
    case ConnectionType::Full:
      gemm(false, false, rows, op.cols, op.rows, grad, op.rows, weights(op), op.cols,
           first ? 0.0f : 1.0f, sourceGrad, op.cols);
      break;
    case ConnectionType::Diagonal: {
      const float* w = weights(op);
      for (int r = 0; r < rows; ++r)
        for (int i = 0; i < op.rows; ++i)
          sourceGrad[r * op.rows + i] =
              (first ? 0.0f : sourceGrad[r * op.rows + i]) + w[i] * grad[r * op.rows + i];
      break;
    }
    case ConnectionType::Identity:
      if (first)
        for (std::size_t i = 0; i < count; ++i) sourceGrad[i] = 0.0f + grad[i];
      else
        for (std::size_t i = 0; i < count; ++i) sourceGrad[i] += grad[i];
      break;
    case ConnectionType::Complement:
    case ConnectionType::Block:  // refused before an engine is built (engine_support.hpp)
      throw std::logic_error("the engines compute no complement or block connection yet");
  }
}

RNNWB_VECTOR_CLONES void CpuBackend::Engine::backwardGroup(const cpu::StackedGroup& group,
                                                           Rows rows) {
  if (group.connections.size() == 1) {
    backwardConnection(m_program.connections[group.connections.front()], rows);
    return;
  }
  if (m_plan.graph().layers[group.from].isInput()) return;
  float* stack = stackRows(rows);
  int column = 0;
  for (int c : group.connections) {
    const cpu::ConnectionOp& op = m_program.connections[c];
    const float* grad = destinationGrad(op, rows.first);
    for (int r = 0; r < rows.count; ++r)
      std::copy_n(grad + static_cast<std::size_t>(r) * op.rows, op.rows,
                  stack + static_cast<std::size_t>(r) * group.rows + column);
    column += op.rows;
  }
  const bool first = m_overwritesBackward[group.connections.front()];
  gemm(false, false, rows.count, group.cols, group.rows, stack, group.rows,
       m_params + group.weightOffset, group.cols, first ? 0.0f : 1.0f,
       dy(group.from, earlier(rows, group.delay).first), group.cols);
}

void CpuBackend::Engine::backwardSteps(const cpu::NodeOp& node, int firstStream, int streamCount) {
  for (int t = m_frames - 1; t >= 0; --t) {
    const Rows rows{static_cast<std::ptrdiff_t>(t) * m_streams + firstStream, streamCount};
    for (std::size_t p = node.layers.size(); p-- > 0;) {
      for (const cpu::StackedGroup& group : node.zeroGroups[p]) backwardGroup(group, rows);
      for (int c : node.zeroOther[p]) backwardConnection(m_program.connections[c], rows);
      finishLayerBackward(node.layers[p], rows);
    }
    for (const cpu::StackedGroup& group : node.delayedGroups) backwardGroup(group, rows);
    for (int c : node.delayedOther) backwardConnection(m_program.connections[c], rows);
  }
}

void CpuBackend::Engine::backwardNode(const cpu::NodeOp& node) {
  if (m_plan.graph().layers[node.layers.front()].isInput()) return;
  const std::size_t n = static_cast<std::size_t>(&node - m_program.nodes.data());
  if (node.recurrent && m_options.fusedSteps)
    onStreamParts(
        [&](int worker, int first, int count) { runSteps(n, true, worker, first, count); });
  else if (node.recurrent)
    inParallel([&](int first, int count) { backwardSteps(node, first, count); });
  else
    onRowParts([&](Rows rows) { finishLayerBackward(node.layers.front(), rows); });
  backwardExternal(node);
}

void CpuBackend::Engine::backwardExternal(const cpu::NodeOp& node) {
  // A worker adds its rows of a connection into the source's dy rows `delay` frames earlier: two
  // connections from one source with different delays would have two workers add into the same
  // rows, so those connections take a pass each. Every dy entry gets its terms in the order of
  // node.external, whatever the worker count.
  const auto& connections = m_program.connections;
  bool sharedRows = false;
  for (std::size_t a = 0; a < node.external.size(); ++a)
    for (std::size_t b = 0; b < a; ++b) {
      const cpu::ConnectionOp& x = connections[node.external[a]];
      const cpu::ConnectionOp& y = connections[node.external[b]];
      sharedRows = sharedRows || (x.from == y.from && x.delay != y.delay);
    }
  if (!sharedRows) {
    onRowParts([&](Rows rows) {
      for (int c : node.external) backwardConnection(connections[c], rows);
    });
    return;
  }
  for (int c : node.external)
    onRowParts([&](Rows rows) { backwardConnection(connections[c], rows); });
}

void CpuBackend::Engine::parameterGradients(const cpu::NodeOp& node, float* gradients) {
  if (m_plan.graph().layers[node.layers.front()].isInput()) return;
  // Each worker computes its part of every bias and weight gradient over all frames of the chunk:
  // no two workers write one parameter, and no sum is split among them.
  m_pool.run([&](int worker) { parameterGradientPart(node, gradients, worker); });
}

RNNWB_VECTOR_CLONES void CpuBackend::Engine::parameterGradientPart(const cpu::NodeOp& node,
                                                                   float* gradients, int worker) {
  const int rows = m_frames * m_streams;
  // Sums over the rows go to a buffer of this worker's own: adding into the gradients row by row
  // would have two workers write one cache line where their parts meet, 2 * T * N times.
  std::vector<float> sums;
  const auto addSums = [&](float* out, int first) {
    for (std::size_t i = 0; i < sums.size(); ++i) out[first + i] += sums[i];
  };
  for (int layer : node.layers) {
    if (const ParameterView* bias = m_layout->layerBias(layer)) {
      const float* gradSum = ds(layer, 0);
      const int size = m_layers[layer].size;
      const auto [first, count] = part(size, worker);
      sums.assign(count, 0.0f);
      float* __restrict acc = sums.data();
      for (int r = 0; r < rows; ++r) {
        const float* row = gradSum + static_cast<std::size_t>(r) * size + first;
        for (int i = 0; i < count; ++i) acc[i] += row[i];
      }
      addSums(gradients + bias->offset, first);
    }
    for (int c : m_plan.anterior(layer)) {
      const cpu::ConnectionOp& op = m_program.connections[c];
      const float* grad = destinationGrad(op, 0);
      const float* source = y(op.from, earlier(frames(0, 1), op.delay).first);
      float* out = gradients + op.weightOffset;
      // Full: this worker's rows of dW = dz^T y. Diagonal: its entries of the sum of dz * y.
      const auto [first, count] = part(op.rows, worker);
      if (op.type == ConnectionType::Full) {
        gemm(true, false, count, op.cols, rows, grad + first, op.rows, source, op.cols, 1.0f,
             out + static_cast<std::size_t>(first) * op.cols, op.cols);
      } else if (op.type == ConnectionType::Diagonal) {
        sums.assign(count, 0.0f);
        float* __restrict acc = sums.data();
        for (int r = 0; r < rows; ++r) {
          const std::size_t row = static_cast<std::size_t>(r) * op.rows + first;
          for (int i = 0; i < count; ++i) acc[i] += grad[row + i] * source[row + i];
        }
        addSums(out, first);
      }
    }
  }
}

void CpuBackend::Engine::reportFinalGradients(const cpu::NodeOp& node, std::span<const float> mask,
                                              ParameterSet& gradients) {
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
  if (!m_plan.graph().layers[node.layers.front()].isInput())
    for (int layer : node.layers) {
      add(m_layout->layerBias(layer));
      for (int c : m_plan.anterior(layer)) add(m_layout->connectionWeight(c));
    }
  if (!ranges.empty()) gradientListener->gradientsFinal(ranges);
}

}  // namespace rnnwb
