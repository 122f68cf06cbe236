// One frame of one node for one stream (node_step.hpp): the node's ops of the op program,
// interpreted on one row. The forward runs here; the VJP in node_step_vjp.cpp, D_t in
// node_step_jacobian.cpp.
#include "rnnwb/core/engine/node_step.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fused_step.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/products.hpp"

namespace rnnwb {

NodeStep::NodeStep(const CompiledPlan& plan, const ParameterLayout& layout, int node)
    : m_plan(plan), m_layout(layout), m_node(node) {
  const Graph& g = plan.graph();
  const SccNode& scc = plan.nodes().at(node);
  if (g.layers[scc.layers.front()].isInput())
    throw std::invalid_argument("layer '" + g.layers[scc.layers.front()].id +
                                "' is an input layer: it has no step to compute");
  m_layers = scc.layers;
  std::sort(m_layers.begin(), m_layers.end());
  m_inner = scc.innerOrder;
  m_unitOffset.assign(g.layers.size(), -1);
  m_stateOffset.assign(g.layers.size(), -1);
  m_productOffset.assign(g.connections.size(), -1);
  for (int l : m_layers) {
    m_unitOffset[l] = m_unitCount;
    m_unitCount += g.layers[l].size;
    m_widest = std::max(m_widest, g.layers[l].size);
    const auto& out = plan.posterior(l);
    const bool isState = std::any_of(out.begin(), out.end(), [&](int c) {
      return g.connections[c].delay > 0 && plan.nodeOfLayer(plan.toLayer(c)) == node;
    });
    if (!isState) continue;
    m_stateLayers.push_back(l);
    m_stateOffset[l] = m_stateSize;
    m_stateSize += g.layers[l].size;
  }
  for (int l : m_layers) {
    for (int c : plan.anterior(l)) {
      const int from = plan.fromLayer(c);
      if (plan.nodeOfLayer(from) != node) {
        m_external.push_back(c);
      } else if (g.connections[c].delay > 1) {
        throw std::invalid_argument("connection '" + g.connections[c].id +
                                    "' inside the node of '" + g.layers[l].id + "' has delay " +
                                    std::to_string(g.connections[c].delay) +
                                    "; a one-frame step needs delay 1 inside a node");
      }
      if (g.layers[l].kind != LayerKind::Multiplicative) continue;
      m_productOffset[c] = m_zCount;
      m_zCount += g.layers[l].size;
    }
  }
  m_externalIndex.assign(g.connections.size(), -1);
  for (std::size_t i = 0; i < m_external.size(); ++i)
    m_externalIndex[m_external[i]] = static_cast<int>(i);
  m_zeros.assign(static_cast<std::size_t>(m_widest), 0.0f);
  // The plain program: every sum starts as a Fill, every term and cotangent adds.
  op::LoweringOptions options;
  options.inputGradients = true;  // the caller may ask for the external inputs' cotangents
  const op::Program program = op::lower(plan, layout, options);
  for (const op::Factor& factor : program.factors)
    m_factorOffset.push_back(m_productOffset[factor.connection]);
  m_stackWidth = program.stackWidth;
  const op::NodeProgram& ops = program.nodes.at(node);
  const auto append = [](std::vector<op::Op>& to, const std::vector<op::Op>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  std::vector<op::Op> forward, backward;
  append(forward, ops.forwardAll);
  append(forward, ops.forwardStep);
  append(backward, ops.recurrent ? ops.backwardStep : ops.backwardAll);
  append(backward, ops.backwardExternal);
  // The caller hands cross-entropy's y - onehot as vOnSums (a step knows no targets).
  std::erase_if(backward, [](const op::Op& op) { return op.kind == op::Kind::CrossEntropyOnSums; });
  m_forward = bindOps(forward);
  m_backward = bindOps(backward);
  m_gradients = bindOps(ops.gradients);
}

int NodeStep::unitOffset(int layer) const {
  return layer >= 0 && layer < static_cast<int>(m_unitOffset.size()) ? m_unitOffset[layer] : -1;
}

int NodeStep::stateOffset(int layer) const {
  return layer >= 0 && layer < static_cast<int>(m_stateOffset.size()) ? m_stateOffset[layer] : -1;
}

int NodeStep::productOffset(int connection) const {
  if (connection < 0 || connection >= static_cast<int>(m_productOffset.size())) return -1;
  return m_productOffset[connection];
}

NodeStep::Tape NodeStep::makeTape() const {
  Tape tape;
  tape.s.assign(m_unitCount, 0.0f);
  tape.y.assign(m_unitCount, 0.0f);
  tape.z.assign(m_zCount, 0.0f);
  tape.stack.assign(static_cast<std::size_t>(m_stackWidth), 0.0f);
  return tape;
}

NodeStep::Slot NodeStep::slotOf(const op::Ref& ref, const op::Op& op) const {
  using Where = Slot::Where;
  const int unit = ref.index >= 0 && ref.index < static_cast<int>(m_unitOffset.size())
                       ? m_unitOffset[ref.index]
                       : -1;
  switch (ref.buffer) {
    case op::Buffer::None:
      return {};
    case op::Buffer::Value:
      if (unit < 0) return {Where::External, m_externalIndex[op.connection]};
      if (ref.shift == 0) return {Where::Y, unit};
      return {Where::PrevState, m_stateOffset[ref.index]};
    case op::Buffer::ValueGrad:
      if (unit < 0) return {Where::ExternalGrad, m_externalIndex[op.connection]};
      if (ref.shift == 0) return {Where::Dy, unit};
      return {Where::PrevStateGrad, m_stateOffset[ref.index]};
    case op::Buffer::Sum:
      return {Where::S, unit};
    case op::Buffer::SumGrad:
      return {Where::Ds, unit};
    case op::Buffer::Factor:
      return {Where::Z, m_factorOffset[ref.index]};
    case op::Buffer::FactorGrad:
      return {Where::Dz, m_factorOffset[ref.index]};
    case op::Buffer::Stack:
      return {Where::Stack, ref.index};
    case op::Buffer::Bias:
      return {Where::Params, static_cast<int>(m_layout.layerBias(ref.index)->offset)};
    case op::Buffer::Zero:
      return {Where::Zeros, 0};
  }
  throw std::logic_error("node step: a buffer reference of no known kind");
}

std::vector<NodeStep::BoundOp> NodeStep::bindOps(const std::vector<op::Op>& ops) const {
  std::vector<BoundOp> bound;
  for (const op::Op& op : ops)
    bound.push_back({op, slotOf(op.dst, op), slotOf(op.a, op), slotOf(op.b, op)});
  return bound;
}

float* NodeStep::rowOf(const Slot& slot, const Frame& frame) {
  using Where = Slot::Where;
  const auto orNull = [&](auto span) {
    return span.empty() ? nullptr : const_cast<float*>(span.data()) + slot.offset;
  };
  switch (slot.where) {
    case Where::None:
      return nullptr;
    case Where::Y:
      return frame.y + slot.offset;
    case Where::S:
      return frame.s + slot.offset;
    case Where::Z:
      return frame.z + slot.offset;
    case Where::Stack:
      return frame.stack + slot.offset;
    case Where::Dy:
      return frame.dy + slot.offset;
    case Where::Ds:
      return frame.ds + slot.offset;
    case Where::Dz:
      return frame.dz + slot.offset;
    case Where::PrevState:
      return orNull(frame.prevState);
    case Where::PrevStateGrad:
      return orNull(frame.prevStateGrad);
    case Where::External:
      return const_cast<float*>(frame.external[slot.offset]);
    case Where::ExternalGrad:
      return frame.externalGrad.empty() ? nullptr : frame.externalGrad[slot.offset];
    case Where::Params:
      return const_cast<float*>(frame.params) + slot.offset;
    case Where::Zeros:
      return const_cast<float*>(frame.zeros);
  }
  return nullptr;
}

void NodeStep::runOp(const BoundOp& bound, const Frame& frame) {
  const op::Op& op = bound.op;
  float* dst = rowOf(bound.dst, frame);
  if (!dst) return;  // a cotangent nobody asked for
  const float* a = rowOf(bound.a, frame);
  const float* weights = op.weights >= 0 ? frame.params + op.weights : nullptr;
  if (op.kind == op::Kind::Product) {  // one row: dst = beta dst + W a (or W^T a)
    if (op.transposeWeights)
      sgemv(false, op.units, op.inner, 1.0f, weights, op.ldw, a, op.beta, dst);
    else
      sgemv(true, op.inner, op.units, 1.0f, weights, op.ldw, a, op.beta, dst);
    return;
  }
  cpu::FusedOp row;
  row.kind = op.kind;
  row.activation = op.activation;
  row.units = op.units;
  row.dst = {dst, 0, 0};
  row.a = {const_cast<float*>(a), 0, 0};
  row.b = {rowOf(bound.b, frame), 0, 0};
  row.weights = weights;
  cpu::runOpRows(row, 0, 0, 1);
}

void NodeStep::checkInputs(std::span<const float* const> external,
                           std::span<const float> prevState) const {
  if (external.size() != m_external.size() || static_cast<int>(prevState.size()) < m_stateSize)
    throw std::invalid_argument(
        "node step: got " + std::to_string(external.size()) + " external inputs and a state of " +
        std::to_string(prevState.size()) + ", expected " + std::to_string(m_external.size()) +
        " and " + std::to_string(m_stateSize));
}

void NodeStep::forward(const ParameterSet& params, std::span<const float* const> external,
                       std::span<const float> prevState, Tape& tape) const {
  checkInputs(external, prevState);
  tape.stack.resize(static_cast<std::size_t>(m_stackWidth));
  Frame frame;
  frame.params = params.values().data();
  frame.zeros = m_zeros.data();
  frame.external = external;
  frame.prevState = prevState;
  frame.y = tape.y.data();
  frame.s = tape.s.data();
  frame.z = tape.z.data();
  frame.stack = tape.stack.data();
  for (const BoundOp& op : m_forward) runOp(op, frame);
  // A layer whose sum is its value has no s of its own in the program; the tape keeps both.
  for (int l : m_layers)
    if (op::sumIsValue(m_plan.graph().layers[l]))
      std::copy_n(tape.y.data() + m_unitOffset[l], m_plan.graph().layers[l].size,
                  tape.s.data() + m_unitOffset[l]);
}

void NodeStep::readState(const Tape& tape, std::span<float> state) const {
  for (int l : m_stateLayers)
    std::copy_n(tape.y.data() + m_unitOffset[l], m_plan.graph().layers[l].size,
                state.data() + m_stateOffset[l]);
}

}  // namespace rnnwb
