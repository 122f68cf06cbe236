// The one lowering (op_lowering.hpp). The order of the ops is the order in which a sum receives
// its terms, which the floats depend on: external connections over all frames first (file order),
// then, per frame of a recurrent node, the delayed stacked groups, the other delayed connections,
// and per layer of the inner order its finish and the groups and connections leaving it with
// delay 0 (engine_program.hpp groups them). The backward runs the same in reverse.
#include "rnnwb/core/engine/op_lowering.hpp"

#include <algorithm>
#include <stdexcept>

#include "rnnwb/core/engine/engine_program.hpp"

namespace rnnwb::op {

bool sumIsValue(const Layer& layer) {
  return !layer.isInput() && layer.activation == Activation::Identity &&
         layer.loss == LossKind::None;
}

namespace {

/// An op of connection c's rule (its target is the layer it computes).
Op make(Kind kind, int units, Ref dst, Ref a, const cpu::ConnectionOp& c) {
  Op op;
  op.kind = kind;
  op.units = units;
  op.dst = dst;
  op.a = a;
  op.connection = c.index;
  op.layer = c.to;
  return op;
}

/// A connection's source rows in `buffer` (its source layer's Value or ValueGrad): moved back by
/// its delay, through a block's window or a reduce's sum over the rows.
Ref sourceRef(const cpu::ConnectionOp& c, Buffer buffer) {
  Ref ref{buffer, c.from, c.delay};
  ref.shiftY = c.delayY;
  if (c.type == ConnectionType::Block || c.reduce) {
    ref.route = c.reduce ? Route::RowSum : Route::BlockWindow;
    ref.via = c.index;
  }
  return ref;
}

/// A connection's forward rule: its term into `dst` (its target's sum, or its own factor).
void emitForwardTerm(const cpu::ConnectionOp& c, Ref dst, std::vector<Op>& ops) {
  const Ref source = sourceRef(c, Buffer::Value);
  switch (c.type) {
    case ConnectionType::Full:     // s += W x
    case ConnectionType::Block: {  // s += W window(x): W [to, from, by, bx] is [to, inner]
      Op op = make(Kind::Product, c.rows, dst, source, c);
      op.inner = c.inner();
      op.weights = static_cast<std::int64_t>(c.weightOffset);
      op.ldw = c.inner();
      op.transposeWeights = true;
      ops.push_back(op);
      return;
    }
    case ConnectionType::Diagonal: {  // s += w * x
      Op op = make(Kind::AddScaled, c.rows, dst, source, c);
      op.weights = static_cast<std::int64_t>(c.weightOffset);
      ops.push_back(op);
      return;
    }
    case ConnectionType::Identity:  // s += x
      ops.push_back(make(Kind::Add, c.rows, dst, source, c));
      return;
    case ConnectionType::Complement:  // s += 1 - x
      ops.push_back(make(Kind::AddComplement, c.rows, dst, source, c));
      return;
  }
}

class Lowering {
 public:
  Lowering(const CompiledPlan& plan, const ParameterLayout& layout, const LoweringOptions& options)
      : m_plan(plan),
        m_layers(plan.graph().layers),
        m_options(options),
        m_groups(cpu::lowerPlan(plan, layout)),
        m_layout(layout) {}

  Program run() {
    for (const cpu::ConnectionOp& c : m_groups.connections)
      if (c.zBuffer >= 0)
        m_program.factors.push_back({c.index, c.rows, false, sourceRef(c, Buffer::Value)});
    m_program.stackWidth = m_groups.widestGroupRows;
    for (const cpu::NodeOp& node : m_groups.nodes) m_program.nodes.push_back(lowerNode(node));
    return std::move(m_program);
  }

 private:
  const cpu::ConnectionOp& connection(int c) const { return m_groups.connections[c]; }
  static Ref value(int layer, int shift = 0) { return {Buffer::Value, layer, shift}; }
  static Ref valueGrad(int layer, int shift = 0) { return {Buffer::ValueGrad, layer, shift}; }
  Ref sum(int layer) const {
    return sumIsValue(m_layers[layer]) ? value(layer) : Ref{Buffer::Sum, layer, 0};
  }
  Ref sumGrad(int layer) const {
    return sumIsValue(m_layers[layer]) ? valueGrad(layer) : Ref{Buffer::SumGrad, layer, 0};
  }
  /// Where a connection's term goes: its target's sum, or its own factor buffer.
  Ref term(const cpu::ConnectionOp& c) const {
    if (c.zBuffer < 0) return sum(c.to);
    return {Buffer::Factor, c.zBuffer, 0};
  }
  static Ref termGrad(const cpu::ConnectionOp& c, Ref sumGradOfTarget) {
    if (c.zBuffer < 0) return sumGradOfTarget;
    return {Buffer::FactorGrad, c.zBuffer, 0};
  }

  NodeProgram lowerNode(const cpu::NodeOp& node);
  void forwardTerm(const cpu::ConnectionOp& c, std::vector<Op>& ops) const;
  void forwardGroup(const cpu::StackedGroup& g, int column, std::vector<Op>& ops) const;
  void initSum(int layer, std::vector<Op>& ops) const;
  void finishLayer(int layer, std::vector<Op>& ops) const;
  void backwardTerm(const cpu::ConnectionOp& c, std::vector<Op>& ops) const;
  void backwardGroup(const cpu::StackedGroup& g, int column, std::vector<Op>& ops) const;
  void finishLayerBackward(int layer, std::vector<Op>& ops) const;
  void gradients(int layer, std::vector<Op>& ops) const;
  void lowerSteps(const cpu::NodeOp& node, NodeProgram& out);

  const CompiledPlan& m_plan;
  const std::vector<Layer>& m_layers;
  LoweringOptions m_options;
  cpu::Program m_groups;
  const ParameterLayout& m_layout;
  Program m_program;
};

// --- forward rules ---------------------------------------------------------------------------

void Lowering::forwardTerm(const cpu::ConnectionOp& c, std::vector<Op>& ops) const {
  emitForwardTerm(c, term(c), ops);
}

void Lowering::forwardGroup(const cpu::StackedGroup& g, int column, std::vector<Op>& ops) const {
  if (g.connections.size() == 1) return forwardTerm(connection(g.connections.front()), ops);
  // One product for every connection of the group; then each adds its columns.
  Op product;
  product.kind = Kind::Product;
  product.units = g.rows;
  product.inner = g.cols;
  product.dst = {Buffer::Stack, column, 0};
  product.a = sourceRef(connection(g.connections.front()), Buffer::Value);
  product.weights = static_cast<std::int64_t>(g.weightOffset);
  product.ldw = g.cols;
  product.transposeWeights = true;
  product.beta = 0.0f;
  ops.push_back(product);
  for (int index : g.connections) {
    const cpu::ConnectionOp& c = connection(index);
    ops.push_back(make(Kind::Add, c.rows, term(c), {Buffer::Stack, column, 0}, c));
    column += c.rows;
  }
}

void Lowering::initSum(int layer, std::vector<Op>& ops) const {
  Op fill;
  fill.kind = Kind::Fill;
  fill.units = m_layers[layer].size;
  fill.layer = layer;
  if (m_layers[layer].kind == LayerKind::Multiplicative) {
    for (int index : m_plan.anterior(layer)) {
      const cpu::ConnectionOp& c = connection(index);
      fill.dst = term(c);
      fill.a = {Buffer::Zero, -1, 0};
      fill.connection = c.index;
      ops.push_back(fill);
    }
    return;
  }
  fill.dst = sum(layer);
  fill.a = m_layout.layerBias(layer) ? Ref{Buffer::Bias, layer, 0} : Ref{Buffer::Zero, -1, 0};
  ops.push_back(fill);
}

void Lowering::finishLayer(int layer, std::vector<Op>& ops) const {
  const Layer& spec = m_layers[layer];
  Op op;
  op.units = spec.size;
  op.layer = layer;
  op.dst = sum(layer);
  if (spec.kind == LayerKind::Multiplicative) {  // s = the product of the factors, in order
    const auto& anterior = m_plan.anterior(layer);
    op.kind = anterior.size() == 1 ? Kind::Copy : Kind::Mul;
    op.a = term(connection(anterior[0]));
    if (anterior.size() >= 2) op.b = term(connection(anterior[1]));
    ops.push_back(op);
    for (std::size_t k = 2; k < anterior.size(); ++k) {
      op.kind = Kind::MulInto;
      op.a = term(connection(anterior[k]));
      op.b = {};
      ops.push_back(op);
    }
  }
  if (sumIsValue(spec)) return;  // y is s
  op.kind = Kind::Activate;
  op.activation = spec.activation;
  op.dst = value(layer);
  op.a = sum(layer);
  op.b = {};
  ops.push_back(op);
}

// --- backward rules --------------------------------------------------------------------------

void Lowering::backwardTerm(const cpu::ConnectionOp& c, std::vector<Op>& ops) const {
  if (m_layers[c.from].isInput() && !m_options.inputGradients) return;
  const Ref grad = termGrad(c, sumGrad(c.to));
  const Ref sourceGrad = sourceRef(c, Buffer::ValueGrad);
  switch (c.type) {
    case ConnectionType::Full:     // dx += W^T dz
    case ConnectionType::Block: {  // window(dx) += W^T dz, added back into the window's rows
      Op op = make(Kind::Product, c.inner(), sourceGrad, grad, c);
      op.inner = c.rows;
      op.weights = static_cast<std::int64_t>(c.weightOffset);
      op.ldw = c.inner();
      ops.push_back(op);
      return;
    }
    case ConnectionType::Diagonal: {  // dx += w * dz
      Op op = make(Kind::AddScaled, c.rows, sourceGrad, grad, c);
      op.weights = static_cast<std::int64_t>(c.weightOffset);
      ops.push_back(op);
      return;
    }
    case ConnectionType::Identity:  // dx += dz
      ops.push_back(make(Kind::Add, c.rows, sourceGrad, grad, c));
      return;
    case ConnectionType::Complement:  // dx -= dz
      ops.push_back(make(Kind::Subtract, c.rows, sourceGrad, grad, c));
      return;
  }
}

void Lowering::backwardGroup(const cpu::StackedGroup& g, int column, std::vector<Op>& ops) const {
  if (g.connections.size() == 1) return backwardTerm(connection(g.connections.front()), ops);
  if (m_layers[g.from].isInput() && !m_options.inputGradients) return;
  // The members' dz side by side in the workspace, then one product into the source's dy.
  int at = column;
  for (int index : g.connections) {
    const cpu::ConnectionOp& c = connection(index);
    ops.push_back(make(Kind::Copy, c.rows, {Buffer::Stack, at, 0}, termGrad(c, sumGrad(c.to)), c));
    at += c.rows;
  }
  Op product;
  product.kind = Kind::Product;
  product.units = g.cols;
  product.inner = g.rows;
  product.dst = sourceRef(connection(g.connections.front()), Buffer::ValueGrad);
  product.a = {Buffer::Stack, column, 0};
  product.weights = static_cast<std::int64_t>(g.weightOffset);
  product.ldw = g.cols;
  product.layer = connection(g.connections.front()).to;
  ops.push_back(product);
}

void Lowering::finishLayerBackward(int layer, std::vector<Op>& ops) const {
  const Layer& spec = m_layers[layer];
  Op op;
  op.units = spec.size;
  op.layer = layer;
  if (!sumIsValue(spec)) {  // ds = dy * f'(s)
    op.kind = Kind::ActivateBackward;
    op.activation = spec.activation;
    op.dst = sumGrad(layer);
    op.a = value(layer);
    op.b = valueGrad(layer);
    ops.push_back(op);
  }
  // The built-in losses' gradients with respect to the sums: cross-entropy's y - onehot, row by
  // row; ctc's, per example (the grid engine computes it after the forward).
  const bool ownLoss = spec.loss == LossKind::CrossEntropy || spec.loss == LossKind::Ctc;
  if (ownLoss && !m_options.externalOutputGradients) {
    const auto& outputs = m_plan.outputLayers();
    op.kind = spec.loss == LossKind::Ctc ? Kind::CtcOnSums : Kind::CrossEntropyOnSums;
    op.dst = sumGrad(layer);
    op.a = value(layer);
    op.b = {};
    op.output =
        static_cast<int>(std::find(outputs.begin(), outputs.end(), layer) - outputs.begin());
    ops.push_back(op);
  }
  if (spec.kind != LayerKind::Multiplicative) return;
  // dz_m = ds * the product of the other factors (no division: a factor may be 0).
  const auto& anterior = m_plan.anterior(layer);
  for (int index : anterior) {
    const cpu::ConnectionOp& c = connection(index);
    Op factor = make(Kind::Copy, spec.size, termGrad(c, {}), sumGrad(layer), c);
    bool first = true;
    for (int other : anterior) {
      if (other == index) continue;
      if (first) {  // dz = ds * z_other
        factor.kind = Kind::Mul;
        factor.b = term(connection(other));
      } else {  // dz *= z_other
        factor.kind = Kind::MulInto;
        factor.a = term(connection(other));
        factor.b = {};
      }
      ops.push_back(factor);
      first = false;
    }
    if (first) ops.push_back(factor);  // one factor only: dz = ds
  }
}

void Lowering::gradients(int layer, std::vector<Op>& ops) const {
  Op op;
  op.layer = layer;
  op.units = m_layers[layer].size;
  const ParameterView* bias = m_layout.layerBias(layer);
  if (bias && bias->trainable) {  // db = sum of ds; a fixed bias has none
    op.kind = Kind::BiasGradient;
    op.a = sumGrad(layer);
    op.weights = static_cast<std::int64_t>(bias->offset);
    ops.push_back(op);
  }
  for (int index : m_plan.anterior(layer)) {
    const cpu::ConnectionOp& c = connection(index);
    if (!c.trainable || !m_plan.graph().connections[index].hasWeight()) continue;
    // Full: dW = dz^T x; block: dW = dz^T window(x); diagonal: dw = sum of dz * x.
    Op grad = make(
        c.type == ConnectionType::Diagonal ? Kind::DiagonalWeightGradient : Kind::WeightGradient,
        c.rows, {}, termGrad(c, sumGrad(layer)), c);
    grad.inner = c.inner();
    grad.b = sourceRef(c, Buffer::Value);
    grad.weights = static_cast<std::int64_t>(c.weightOffset);
    ops.push_back(grad);
  }
}

// --- nodes -----------------------------------------------------------------------------------

void Lowering::lowerSteps(const cpu::NodeOp& node, NodeProgram& out) {
  // Every stacked group of the node has its own columns of the workspace: a fused block may read
  // the columns of several products.
  std::vector<int> columns;
  int width = 0;
  const auto place = [&](const cpu::StackedGroup& g) {
    columns.push_back(g.connections.size() > 1 ? width : -1);
    if (g.connections.size() > 1) width += g.rows;
  };
  for (const cpu::StackedGroup& g : node.delayedGroups) place(g);
  for (const auto& groups : node.zeroGroups)
    for (const cpu::StackedGroup& g : groups) place(g);
  m_program.stackWidth = std::max(m_program.stackWidth, width);

  std::size_t column = 0;
  for (const cpu::StackedGroup& g : node.delayedGroups)
    forwardGroup(g, columns[column++], out.forwardStep);
  for (int c : node.delayedOther) forwardTerm(connection(c), out.forwardStep);
  std::vector<std::size_t> firstZeroGroup(node.layers.size());
  for (std::size_t p = 0; p < node.layers.size(); ++p) {
    firstZeroGroup[p] = column;
    finishLayer(node.layers[p], out.forwardStep);
    for (const cpu::StackedGroup& g : node.zeroGroups[p])
      forwardGroup(g, columns[column++], out.forwardStep);
    for (int c : node.zeroOther[p]) forwardTerm(connection(c), out.forwardStep);
  }
  for (std::size_t p = node.layers.size(); p-- > 0;) {
    for (std::size_t k = 0; k < node.zeroGroups[p].size(); ++k)
      backwardGroup(node.zeroGroups[p][k], columns[firstZeroGroup[p] + k], out.backwardStep);
    for (int c : node.zeroOther[p]) backwardTerm(connection(c), out.backwardStep);
    finishLayerBackward(node.layers[p], out.backwardStep);
  }
  for (std::size_t k = 0; k < node.delayedGroups.size(); ++k)
    backwardGroup(node.delayedGroups[k], columns[k], out.backwardStep);
  for (int c : node.delayedOther) backwardTerm(connection(c), out.backwardStep);
}

NodeProgram Lowering::lowerNode(const cpu::NodeOp& node) {
  NodeProgram out;
  out.recurrent = node.recurrent;
  out.layers = node.layers;
  out.computes = !m_layers[node.layers.front()].isInput();
  if (!out.computes) return out;  // loaded with the batch
  for (int layer : node.layers) initSum(layer, out.forwardAll);
  for (int c : node.external) forwardTerm(connection(c), out.forwardAll);
  if (node.recurrent) {
    lowerSteps(node, out);
  } else {
    finishLayer(node.layers.front(), out.forwardAll);
    finishLayerBackward(node.layers.front(), out.backwardAll);
  }
  for (int c : node.external) backwardTerm(connection(c), out.backwardExternal);
  for (int layer : node.layers) gradients(layer, out.gradients);
  return out;
}

}  // namespace

Program lower(const CompiledPlan& plan, const ParameterLayout& layout,
              const LoweringOptions& options) {
  return Lowering(plan, layout, options).run();
}

Op connectionTerm(const CompiledPlan& plan, int connection) {
  const cpu::ConnectionOp c = cpu::connectionOp(plan, connection);
  const bool factor = plan.graph().layers[c.to].kind == LayerKind::Multiplicative;
  std::vector<Op> ops;
  emitForwardTerm(c, factor ? Ref{Buffer::Factor, 0, 0} : Ref{Buffer::Sum, c.to, 0}, ops);
  return ops.front();
}

}  // namespace rnnwb::op
