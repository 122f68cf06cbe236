// The VJP of a node step (node_step.hpp): the node's backward ops of the op program on one row,
// from v on its units' y, then its parameter-gradient ops. The program's cotangents add, so what
// the caller's Cotangents hold is accumulated into.
#include <algorithm>

#include "rnnwb/core/engine/node_step.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/products.hpp"

namespace rnnwb {

void NodeStep::vjp(const ParameterSet& params, std::span<const float* const> external,
                   std::span<const float> prevState, const Tape& tape, std::span<const float> v,
                   const Cotangents& out, std::vector<float>& scratch,
                   std::span<const float> vOnSums) const {
  const auto& layers = m_plan.graph().layers;
  const std::size_t units = static_cast<std::size_t>(m_unitCount);
  // Every row of it is written before it is read (the backward ops write ds, dz and the stack
  // first): no clearing.
  scratch.resize(2 * units + m_zCount + m_stackWidth);
  Frame frame;
  frame.params = params.values().data();
  frame.zeros = m_zeros.data();
  frame.external = external;
  frame.prevState = prevState;
  frame.y = const_cast<float*>(tape.y.data());
  frame.s = const_cast<float*>(tape.s.data());
  frame.z = const_cast<float*>(tape.z.data());
  frame.dy = scratch.data();
  frame.ds = frame.dy + units;
  frame.dz = frame.ds + units;
  frame.stack = frame.dz + m_zCount;
  frame.prevStateGrad = out.prevState;
  frame.externalGrad = out.external;
  std::copy_n(v.data(), units, frame.dy);
  // vOnSums is a cotangent on s: for a layer whose sum is its value, on y itself.
  const auto addOnSums = [&](int layer, float* row) {
    if (vOnSums.empty()) return;
    for (int i = 0; i < layers[layer].size; ++i) row[i] += vOnSums[m_unitOffset[layer] + i];
  };
  for (int l : m_layers)
    if (op::sumIsValue(layers[l])) addOnSums(l, frame.dy + m_unitOffset[l]);
  for (const BoundOp& bound : m_backward) {
    runOp(bound, frame);
    if (bound.op.kind == op::Kind::ActivateBackward)
      addOnSums(bound.op.layer, rowOf(bound.dst, frame));
  }
  if (!out.sums.empty())
    for (int l : m_layers) {
      const float* ds = op::sumIsValue(layers[l]) ? frame.dy : frame.ds;
      for (int i = 0; i < layers[l].size; ++i)
        out.sums[m_unitOffset[l] + i] += ds[m_unitOffset[l] + i];
    }
  if (!out.products.empty())
    for (int i = 0; i < m_zCount; ++i) out.products[i] += frame.dz[i];
  if (out.params.empty()) return;
  for (const BoundOp& bound : m_gradients) {
    const op::Op& op = bound.op;
    const float* grad = rowOf(bound.a, frame);
    float* dw = out.params.data() + op.weights;
    if (op.kind == op::Kind::BiasGradient) {
      for (int i = 0; i < op.units; ++i) dw[i] += grad[i];
    } else if (op.kind == op::Kind::DiagonalWeightGradient) {
      const float* x = rowOf(bound.b, frame);
      for (int i = 0; i < op.units; ++i) dw[i] += grad[i] * x[i];
    } else {  // WeightGradient: the outer product, with the connection's mask
      sger(op.units, op.inner, 1.0f, grad, rowOf(bound.b, frame), dw, op.inner);
      const std::span<const float> mask = params.connectionMask(op.connection);
      for (std::size_t i = 0; i < mask.size(); ++i) dw[i] *= mask[i];
    }
  }
}

}  // namespace rnnwb
