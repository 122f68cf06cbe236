// The fused recurrent step (fused_step.hpp): each recurrent node's frame-by-frame work generated
// as a program from its lowering, in the order of forwardSteps / backwardSteps, and run frame by
// frame on each worker's streams. The programs point into this chunk's buffers and parameters, so
// they are generated again for every chunk (a few dozen ops per node).
#include <algorithm>

#include "cpu_engine.hpp"

namespace rnnwb {
namespace {

/// The op of a connection's add into a row: the first writer of the row writes (planFirstWriters).
cpu::FusedKind addKind(bool scaled, bool first) {
  if (first) return scaled ? cpu::FusedKind::AssignScaled : cpu::FusedKind::Assign;
  return scaled ? cpu::FusedKind::AddScaled : cpu::FusedKind::Add;
}

}  // namespace

cpu::RowOperand CpuBackend::Engine::rowsOf(float* atRowZero, int width) const {
  const std::ptrdiff_t stride = width;
  return {atRowZero, stride * m_streams, stride};
}

cpu::RowOperand CpuBackend::Engine::stackColumns(int column) {
  return {m_stack.data() + column, 0, m_stackWidth};
}

cpu::RowOperand CpuBackend::Engine::sourceRows(const cpu::ConnectionOp& op) {
  return rowsOf(y(op.from, -static_cast<std::ptrdiff_t>(op.delay) * m_streams), op.cols);
}

cpu::RowOperand CpuBackend::Engine::sourceGradRows(const cpu::ConnectionOp& op) {
  return rowsOf(dy(op.from, -static_cast<std::ptrdiff_t>(op.delay) * m_streams), op.cols);
}

bool CpuBackend::Engine::gradientSkipsProduct(const cpu::ConnectionOp& op) const {
  // An identity connection inside a node into a two-factor product: its dz = ds * (the other
  // factor) only flows on to its source's dy (no weights), so the fused backward adds the
  // product into dy where the unfused one added dz: one row less to write and read per frame.
  return op.zBuffer >= 0 && op.type == ConnectionType::Identity &&
         m_plan.nodeOfLayer(op.from) == m_plan.nodeOfLayer(op.to) &&
         m_plan.anterior(op.to).size() == 2;
}

void CpuBackend::Engine::compileSteps() {
  m_forwardSteps.assign(m_program.nodes.size(), {});
  m_backwardSteps.assign(m_program.nodes.size(), {});
  for (std::size_t n = 0; n < m_program.nodes.size(); ++n) {
    const cpu::NodeOp& node = m_program.nodes[n];
    if (!node.recurrent) continue;
    // Every stacked group of the node has its own columns of the workspace: a block may read
    // the columns of several products (in the unfused passes each group used them in turn).
    int column = 0;
    std::vector<int> columns;
    const auto place = [&](const cpu::StackedGroup& group) {
      columns.push_back(group.connections.size() > 1 ? column : -1);
      if (group.connections.size() > 1) column += group.rows;
    };
    for (const cpu::StackedGroup& group : node.delayedGroups) place(group);
    for (const auto& groups : node.zeroGroups)
      for (const cpu::StackedGroup& group : groups) place(group);
    compileForward(node, m_forwardSteps[n], columns);
    compileBackward(node, m_backwardSteps[n], columns);
    if (m_options.packedStepProducts) {
      makePackedProducts(n, false);
      makePackedProducts(n, true);
    }
  }
}

void CpuBackend::Engine::compileForward(const cpu::NodeOp& node,
                                        std::vector<cpu::FusedStep>& program,
                                        const std::vector<int>& columns) {
  std::size_t g = 0;
  for (const cpu::StackedGroup& group : node.delayedGroups)
    compileForwardGroup(group, columns[g++], program);
  for (int c : node.delayedOther) compileForwardConnection(m_program.connections[c], program);
  for (std::size_t p = 0; p < node.layers.size(); ++p) {
    compileFinishLayer(node.layers[p], program);
    for (const cpu::StackedGroup& group : node.zeroGroups[p])
      compileForwardGroup(group, columns[g++], program);
    for (int c : node.zeroOther[p]) compileForwardConnection(m_program.connections[c], program);
  }
}

void CpuBackend::Engine::compileForwardConnection(const cpu::ConnectionOp& op,
                                                  std::vector<cpu::FusedStep>& program) {
  if (readsSource(op)) return;  // the multiplicative layer reads the source's y in place
  const cpu::RowOperand dest = rowsOf(destination(op, 0), op.rows);
  const bool first = m_overwritesForward[op.index];  // planFirstWriters
  if (op.type == ConnectionType::Full) {
    cpu::FusedStep step;
    step.isProduct = true;
    step.product = {true, op.rows,     op.cols, sourceRows(op),
                    dest, weights(op), op.cols, first ? 0.0f : 1.0f};
    program.push_back(std::move(step));
    return;
  }
  cpu::FusedOp add;
  add.kind = addKind(op.type == ConnectionType::Diagonal, first);
  add.units = op.rows;
  add.dst = dest;
  addBiasFirst(op, program);
  add.a = sourceRows(op);
  add.weights = op.type == ConnectionType::Diagonal ? weights(op) : nullptr;
  cpu::appendOp(program, add);
}

void CpuBackend::Engine::addBiasFirst(const cpu::ConnectionOp& op,
                                      std::vector<cpu::FusedStep>& program) {
  // The sum's first writer wrote instead of adding into the bias rows; this connection, the
  // second, adds the bias before its own term: (s + b) + x, as the unfused forwardGroup.
  const float* bias = biasFirst(op);
  if (!bias) return;
  cpu::FusedOp add;
  add.units = op.rows;
  add.dst = rowsOf(destination(op, 0), op.rows);
  add.a = {const_cast<float*>(bias), 0, 0};  // the same row for every frame and stream
  cpu::appendOp(program, add);
}

void CpuBackend::Engine::compileForwardGroup(const cpu::StackedGroup& group, int column,
                                             std::vector<cpu::FusedStep>& program) {
  if (group.connections.size() == 1) {
    compileForwardConnection(m_program.connections[group.connections.front()], program);
    return;
  }
  cpu::FusedStep step;
  step.isProduct = true;
  const cpu::RowOperand source =
      rowsOf(y(group.from, -static_cast<std::ptrdiff_t>(group.delay) * m_streams), group.cols);
  step.product = {true,
                  group.rows,
                  group.cols,
                  source,
                  stackColumns(column),
                  m_params + group.weightOffset,
                  group.cols,
                  0.0f};
  program.push_back(std::move(step));
  for (int c : group.connections) {
    const cpu::ConnectionOp& op = m_program.connections[c];
    cpu::FusedOp add;
    add.kind = addKind(false, m_overwritesForward[c]);
    add.units = op.rows;
    add.dst = rowsOf(destination(op, 0), op.rows);
    add.a = stackColumns(column);
    addBiasFirst(op, program);
    cpu::appendOp(program, add);
    column += op.rows;
  }
}

void CpuBackend::Engine::compileFinishLayer(int layer, std::vector<cpu::FusedStep>& program) {
  const Layer& spec = m_plan.graph().layers[layer];
  const cpu::RowOperand sum = rowsOf(s(layer, 0), spec.size);
  if (spec.kind == LayerKind::Multiplicative) {
    const auto& anterior = m_plan.anterior(layer);
    const auto factor = [&](std::size_t k) {
      return rowsOf(destination(m_program.connections[anterior[k]], 0), spec.size);
    };
    cpu::FusedOp product;
    product.units = spec.size;
    product.dst = sum;
    product.kind = anterior.size() == 1 ? cpu::FusedKind::Copy : cpu::FusedKind::Mul;
    product.a = factor(0);
    if (anterior.size() >= 2) product.b = factor(1);
    cpu::appendOp(program, product);
    for (std::size_t k = 2; k < anterior.size(); ++k) {
      product.kind = cpu::FusedKind::MulInto;
      product.a = factor(k);
      cpu::appendOp(program, product);
    }
  }
  if (m_layers[layer].sumIsOutput) return;  // y is s
  cpu::FusedOp activate;
  activate.kind = cpu::FusedKind::Activate;
  activate.activation = spec.activation;
  activate.units = spec.size;
  activate.dst = rowsOf(y(layer, 0), spec.size);
  activate.a = sum;
  if (spec.kind == LayerKind::Additive && spec.loss == LossKind::None)
    mergeLastAdd(program, activate);
  cpu::appendOp(program, activate);
}

void CpuBackend::Engine::mergeLastAdd(std::vector<cpu::FusedStep>& program,
                                      cpu::FusedOp& activate) {
  // The last add into this frame's sum, when it is in the block that the activation joins and no
  // op after it reads the sum, goes into the activation: y = f(s + x) without storing s + x,
  // which nothing else reads (no loss; the backward reads y). One row less to write per frame.
  const bool elementWise = activate.activation == Activation::Sigmoid ||
                           activate.activation == Activation::Tanh ||
                           activate.activation == Activation::Relu;
  if (!elementWise || program.empty() || program.back().isProduct) return;
  std::vector<cpu::FusedOp>& block = program.back().block;
  const auto touches = [&](const cpu::RowOperand& row) { return row.base == activate.a.base; };
  for (std::size_t i = block.size(); i-- > 0;) {
    cpu::FusedOp& op = block[i];
    if (touches(op.a) || touches(op.b)) return;
    if (!touches(op.dst)) continue;
    const bool add = op.kind == cpu::FusedKind::Add || op.kind == cpu::FusedKind::AddScaled;
    const bool assign =
        op.kind == cpu::FusedKind::Assign || op.kind == cpu::FusedKind::AssignScaled;
    if (!add && !assign) return;
    activate.kind = cpu::FusedKind::AddActivate;
    if (assign) activate.a = {m_zeroRow.data(), 0, 0};  // y = f(0 + x): the sum is not stored
    activate.b = op.a;
    activate.weights =
        op.kind == cpu::FusedKind::AddScaled || op.kind == cpu::FusedKind::AssignScaled ? op.weights
                                                                                        : nullptr;
    block.erase(block.begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
}

void CpuBackend::Engine::compileBackward(const cpu::NodeOp& node,
                                         std::vector<cpu::FusedStep>& program,
                                         const std::vector<int>& columns) {
  // The zero-delay groups' columns follow the delayed groups', in layer order.
  std::vector<std::size_t> firstZeroGroup(node.layers.size());
  std::size_t g = node.delayedGroups.size();
  for (std::size_t p = 0; p < node.layers.size(); ++p) {
    firstZeroGroup[p] = g;
    g += node.zeroGroups[p].size();
  }
  for (std::size_t p = node.layers.size(); p-- > 0;) {
    for (std::size_t k = 0; k < node.zeroGroups[p].size(); ++k)
      compileBackwardGroup(node.zeroGroups[p][k], columns[firstZeroGroup[p] + k], program);
    for (int c : node.zeroOther[p]) compileBackwardConnection(m_program.connections[c], program);
    compileFinishLayerBackward(node.layers[p], program);
  }
  for (std::size_t k = 0; k < node.delayedGroups.size(); ++k)
    compileBackwardGroup(node.delayedGroups[k], columns[k], program);
  for (int c : node.delayedOther) compileBackwardConnection(m_program.connections[c], program);
}

void CpuBackend::Engine::compileBackwardConnection(const cpu::ConnectionOp& op,
                                                   std::vector<cpu::FusedStep>& program) {
  if (m_plan.graph().layers[op.from].isInput()) return;
  if (gradientSkipsProduct(op)) {
    const auto& factors = m_plan.anterior(op.to);
    const int other = factors[0] == op.index ? factors[1] : factors[0];
    cpu::FusedOp add;
    add.kind = m_overwritesBackward[op.index] ? cpu::FusedKind::MulAssign : cpu::FusedKind::MulAdd;
    add.units = op.rows;
    add.dst = sourceGradRows(op);
    add.a = rowsOf(ds(op.to, 0), op.rows);
    add.b = rowsOf(destination(m_program.connections[other], 0), op.rows);
    cpu::appendOp(program, add);
    return;
  }
  const cpu::RowOperand grad = rowsOf(destinationGrad(op, 0), op.rows);
  const bool first = m_overwritesBackward[op.index];  // planFirstWriters
  if (op.type == ConnectionType::Full) {
    cpu::FusedStep step;
    step.isProduct = true;
    step.product = {false,
                    op.cols,
                    op.rows,
                    grad,
                    sourceGradRows(op),
                    weights(op),
                    op.cols,
                    first ? 0.0f : 1.0f};
    program.push_back(std::move(step));
    return;
  }
  cpu::FusedOp add;
  add.kind = addKind(op.type == ConnectionType::Diagonal, first);
  add.units = op.rows;
  add.dst = sourceGradRows(op);
  add.a = grad;
  add.weights = op.type == ConnectionType::Diagonal ? weights(op) : nullptr;
  cpu::appendOp(program, add);
}

void CpuBackend::Engine::compileBackwardGroup(const cpu::StackedGroup& group, int column,
                                              std::vector<cpu::FusedStep>& program) {
  if (group.connections.size() == 1) {
    compileBackwardConnection(m_program.connections[group.connections.front()], program);
    return;
  }
  if (m_plan.graph().layers[group.from].isInput()) return;
  int at = column;
  for (int c : group.connections) {
    const cpu::ConnectionOp& op = m_program.connections[c];
    cpu::FusedOp copy;
    copy.kind = cpu::FusedKind::Copy;
    copy.units = op.rows;
    copy.dst = stackColumns(at);
    copy.a = rowsOf(destinationGrad(op, 0), op.rows);
    cpu::appendOp(program, copy);
    at += op.rows;
  }
  cpu::FusedStep step;
  step.isProduct = true;
  const cpu::RowOperand sourceGrad =
      rowsOf(dy(group.from, -static_cast<std::ptrdiff_t>(group.delay) * m_streams), group.cols);
  step.product = {false,      group.cols,
                  group.rows, stackColumns(column),
                  sourceGrad, m_params + group.weightOffset,
                  group.cols, m_overwritesBackward[group.connections.front()] ? 0.0f : 1.0f};
  program.push_back(std::move(step));
}

void CpuBackend::Engine::compileFinishLayerBackward(int layer,
                                                    std::vector<cpu::FusedStep>& program) {
  const Layer& spec = m_plan.graph().layers[layer];
  const cpu::RowOperand gradSum = rowsOf(ds(layer, 0), spec.size);
  const cpu::RowOperand out = rowsOf(y(layer, 0), spec.size);
  cpu::FusedOp op;
  op.units = spec.size;
  if (!m_layers[layer].sumIsOutput) {
    op.kind = cpu::FusedKind::ActivateBackward;
    op.activation = spec.activation;
    op.dst = gradSum;
    op.a = out;
    op.b = rowsOf(dy(layer, 0), spec.size);
    cpu::appendOp(program, op);
  }
  // Under backwardFromOutputs the loss's gradient is in dy already; a forward-only chunk may
  // have no targets (this program is compiled for it all the same, and never runs).
  if (spec.loss == LossKind::CrossEntropy && !m_outputGradients && !m_batch->targets.empty()) {
    const auto& outputs = m_plan.outputLayers();
    const auto o = std::find(outputs.begin(), outputs.end(), layer) - outputs.begin();
    op.kind = cpu::FusedKind::CrossEntropyOnSums;
    op.dst = gradSum;
    op.a = out;
    op.classes = m_batch->targets[o].i64().data();
    op.firstPredictedRow = static_cast<std::ptrdiff_t>(m_batch->firstPredictedFrame) * m_streams;
    op.streams = m_streams;
    cpu::appendOp(program, op);
  }
  if (spec.kind != LayerKind::Multiplicative) return;
  // dz_m = ds * the product of the other factors, as finishLayerBackward.
  const auto& anterior = m_plan.anterior(layer);
  for (int c : anterior) {
    if (gradientSkipsProduct(m_program.connections[c])) continue;  // added on into dy
    cpu::FusedOp factor;
    factor.units = spec.size;
    factor.dst = rowsOf(destinationGrad(m_program.connections[c], 0), spec.size);
    bool first = true;
    for (int other : anterior) {
      if (other == c) continue;
      factor.kind = first ? cpu::FusedKind::Mul : cpu::FusedKind::MulInto;
      factor.a = first ? gradSum : rowsOf(destination(m_program.connections[other], 0), spec.size);
      factor.b = rowsOf(destination(m_program.connections[other], 0), spec.size);
      cpu::appendOp(program, factor);
      first = false;
    }
    if (first) {
      factor.kind = cpu::FusedKind::Copy;
      factor.a = gradSum;
      cpu::appendOp(program, factor);
    }
  }
}

void CpuBackend::Engine::runSteps(std::size_t node, bool backward, int worker, int first,
                                  int count) {
  const std::vector<cpu::FusedStep>& program =
      backward ? m_backwardSteps[node] : m_forwardSteps[node];
  const std::vector<PackedProduct*> packed = packedProducts(node, backward, worker);
  for (int f = 0; f < m_frames; ++f) {
    const int t = backward ? m_frames - 1 - f : f;
    std::size_t index = 0;
    for (const cpu::FusedStep& step : program) {
      if (!step.isProduct) {
        cpu::runFusedBlock(step, t, first, count);
        continue;
      }
      const cpu::FusedProduct& p = step.product;
      if (!packed.empty()) {
        PackedProduct& product = *packed[index++];
        timedProduct(2.0 * count * p.n * p.k,
                     [&] { product.multiply(p.a.at(t, first), p.c.at(t, first)); });
        continue;
      }
      gemm(false, p.transposeWeights, count, p.n, p.k, p.a.at(t, first),
           static_cast<int>(p.a.streamStride), p.weights, p.ldw, p.beta, p.c.at(t, first),
           static_cast<int>(p.c.streamStride));
    }
  }
}

}  // namespace rnnwb
