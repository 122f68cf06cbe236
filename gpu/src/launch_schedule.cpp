// The chunk lowering: the arena layout and the forward pass (schedule_builder.hpp).
#include "launch_schedule.hpp"

#include <stdexcept>

#include "schedule_builder.hpp"

namespace rnnwb::gpu {
namespace detail {

void Builder::allocate() {
  const auto& layers = m_plan.graph().layers;
  auto floats = [&](Offset count) {
    const Offset at = static_cast<Offset>(m_out.floatArena);
    m_out.floatArena += static_cast<std::size_t>(count);
    return at;
  };
  for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
    const Offset rows = allRows() * layers[l].size;
    const Offset pad = (static_cast<Offset>(delayOf(l)) * m_n) * layers[l].size + rows;
    m_off.y.push_back(floats(pad));
    m_off.s.push_back(floats(rows));
    m_off.dy.push_back(m_shape.backward ? floats(pad) : 0);
    m_off.ds.push_back(m_shape.backward ? floats(rows) : 0);
  }
  m_off.z.resize(m_program.zBufferCount);
  m_off.dz.resize(m_program.zBufferCount);
  for (const ConnectionOp& op : m_program.connections) {
    if (op.zBuffer < 0) continue;
    m_off.z[op.zBuffer] = floats(allRows() * op.rows);
    if (m_shape.backward) m_off.dz[op.zBuffer] = floats(allRows() * op.rows);
  }
  m_off.stack = floats(static_cast<Offset>(m_n) * m_program.widestGroupRows);
  const Offset params = static_cast<Offset>(m_layout.size());
  m_off.params = floats(params);
  m_off.grads = m_shape.backward ? floats(params) : 0;
  m_off.mask = m_shape.backward && m_shape.masks ? floats(params) : 0;
  for (int l : m_plan.outputLayers()) {
    if (layers[l].loss == LossKind::CrossEntropy) {
      m_off.targets.push_back(static_cast<Offset>(m_out.intArena));
      m_out.intArena += static_cast<std::size_t>(allRows());
    } else {
      m_off.targets.push_back(floats(allRows() * layers[l].size));
    }
    m_off.loss.push_back(static_cast<Offset>(m_out.doubleArena));
    m_out.doubleArena += static_cast<std::size_t>(allRows());
  }
}

void Builder::flat(StepKind kind, Offset dst, Offset src, Offset count) {
  if (count <= 0) return;
  LaunchStep step;
  step.kind = kind;
  step.dst = dst;
  step.src = src;
  step.count = count;
  emit(step);
}

void Builder::gemm(bool ta, bool tb, int m, int n, int k, Offset a, int lda, Offset b, int ldb,
                   float beta, Offset c, int ldc) {
  if (m == 0 || n == 0 || k == 0) return;
  LaunchStep step;
  step.kind = StepKind::Gemm;
  step.transA = ta;
  step.transB = tb;
  step.m = m;
  step.n = n;
  step.k = k;
  step.src = a;
  step.lda = lda;
  step.aux = b;
  step.ldb = ldb;
  step.beta = beta;
  step.dst = c;
  step.ldc = ldc;
  emit(step);
  ++m_out.gemmCount;
}

ChunkSchedule Builder::build() {
  allocate();
  for (const NodeOp& node : m_program.nodes) forwardNode(node);
  if (m_shape.targets) losses();
  if (m_shape.backward) {
    startBackward();
    for (auto node = m_program.nodes.rbegin(); node != m_program.nodes.rend(); ++node) {
      backwardNode(*node);
      parameterGradients(*node);
    }
    if (m_shape.masks) flat(StepKind::Mask, m_off.grads, m_off.mask, m_layout.size());
  }
  return {m_shape, std::move(m_off), std::move(m_out)};
}

// ---- forward -------------------------------------------------------------------------------

void Builder::forwardNode(const NodeOp& node) {
  if (layer(node.layers.front()).isInput()) return;  // uploaded with the batch
  for (int l : node.layers) initDestinations(l);
  for (int c : node.external) forwardConnection(m_program.connections[c], frames(0, m_t));
  if (!node.recurrent) {
    finishLayer(node.layers.front(), frames(0, m_t));
    return;
  }
  for (int t = 0; t < m_t; ++t) {
    const Rows rows = frames(t, t + 1);
    for (const StackedGroup& group : node.delayedGroups) forwardGroup(group, rows);
    for (int c : node.delayedOther) forwardConnection(m_program.connections[c], rows);
    for (std::size_t p = 0; p < node.layers.size(); ++p) {
      finishLayer(node.layers[p], rows);
      for (const StackedGroup& group : node.zeroGroups[p]) forwardGroup(group, rows);
      for (int c : node.zeroOther[p]) forwardConnection(m_program.connections[c], rows);
    }
  }
}

void Builder::initDestinations(int l) {
  if (layer(l).kind == LayerKind::Multiplicative) {
    for (int c : m_plan.anterior(l)) {
      const ConnectionOp& op = m_program.connections[c];
      flat(StepKind::Zero, dest(op, 0), 0, allRows() * op.rows);
    }
    return;
  }
  const ParameterView* bias = m_layout.layerBias(l);
  if (!bias) {
    flat(StepKind::Zero, s(l, 0), 0, allRows() * layer(l).size);
    return;
  }
  LaunchStep step;
  step.kind = StepKind::BroadcastRow;
  step.dst = s(l, 0);
  step.src = weights(bias->offset);
  step.rows = static_cast<int>(allRows());
  step.width = layer(l).size;
  emit(step);
}

void Builder::forwardConnection(const ConnectionOp& op, Rows rows) {
  const Offset source = y(op.from, earlier(rows.first, op.delay));
  const Offset target = dest(op, rows.first);
  switch (op.type) {
    case ConnectionType::Full:
      gemm(false, true, rows.count, op.rows, op.cols, source, op.cols, weights(op.weightOffset),
           op.cols, 1.0f, target, op.rows);
      break;
    case ConnectionType::Diagonal: {
      LaunchStep step;
      step.kind = StepKind::AddProduct;
      step.dst = target;
      step.src = source;
      step.aux = weights(op.weightOffset);
      step.rows = rows.count;
      step.width = op.rows;
      emit(step);
      break;
    }
    case ConnectionType::Identity:
      flat(StepKind::Add, target, source, static_cast<Offset>(rows.count) * op.rows);
      break;
    case ConnectionType::Complement:
    case ConnectionType::Block:  // refused before an engine is built (engine_support.hpp)
      throw std::logic_error("the engines compute no complement or block connection yet");
  }
}

void Builder::forwardGroup(const StackedGroup& group, Rows rows) {
  if (group.connections.size() == 1) {
    forwardConnection(m_program.connections[group.connections.front()], rows);
    return;
  }
  // One product for every connection of the group, then each adds its columns.
  gemm(false, true, rows.count, group.rows, group.cols,
       y(group.from, earlier(rows.first, group.delay)), group.cols, weights(group.weightOffset),
       group.cols, 0.0f, m_off.stack, group.rows);
  int column = 0;
  for (int c : group.connections) {
    const ConnectionOp& op = m_program.connections[c];
    LaunchStep step;
    step.kind = StepKind::AddColumns;
    step.dst = dest(op, rows.first);
    step.src = m_off.stack + column;
    step.srcLd = group.rows;
    step.rows = rows.count;
    step.width = op.rows;
    emit(step);
    column += op.rows;
  }
}

void Builder::finishLayer(int l, Rows rows) {
  const Offset count = static_cast<Offset>(rows.count) * layer(l).size;
  if (layer(l).kind == LayerKind::Multiplicative) {
    bool first = true;
    for (int c : m_plan.anterior(l)) {
      flat(first ? StepKind::Copy : StepKind::Multiply, s(l, rows.first),
           dest(m_program.connections[c], rows.first), count);
      first = false;
    }
  }
  LaunchStep step;
  step.kind = StepKind::Activate;
  step.activation = layer(l).activation;
  step.dst = y(l, rows.first);
  step.src = s(l, rows.first);
  step.rows = rows.count;
  step.width = layer(l).size;
  emit(step);
}

void Builder::losses() {
  const auto& outputs = m_plan.outputLayers();
  const Offset first = static_cast<Offset>(m_shape.firstPredictedFrame) * m_n;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const int l = outputs[o];
    LaunchStep step;
    step.rows = static_cast<int>(allRows() - first);
    if (step.rows == 0) continue;
    step.width = layer(l).size;
    step.lossRow = m_off.loss[o] + first;
    if (layer(l).loss == LossKind::CrossEntropy) {
      step.kind = StepKind::CrossEntropyLoss;
      step.src = s(l, first);
      step.classes = m_off.targets[o] + first;
    } else {
      step.kind = StepKind::MseLoss;
      step.src = y(l, first);
      step.aux = m_off.targets[o] + first * layer(l).size;
    }
    emit(step);
  }
}

}  // namespace detail

ChunkSchedule buildChunkSchedule(const CompiledPlan& plan, const ParameterLayout& layout,
                                 const Program& program, const ChunkShape& shape) {
  return detail::Builder(plan, layout, program, shape).build();
}

}  // namespace rnnwb::gpu
