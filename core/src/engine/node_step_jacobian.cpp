// D_t = ∂h_t/∂h_{t-1} of a node step (node_step.hpp) by forward-mode propagation through the
// node's forward ops: one tangent rule per op kind. Every row a tangent is kept for (a member's
// y and s, a factor, the stack) carries T = ∂row/∂h_{t-1} (its units x |h|, row-major). A state
// row h_{t-1} itself has the identity as its tangent, so an op reading it only places its weights
// into T (no product); external rows, biases and zeros are constants of the step: tangent 0.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "rnnwb/core/engine/activation_math.hpp"
#include "rnnwb/core/engine/node_step.hpp"
#include "rnnwb/core/engine/products.hpp"

namespace rnnwb {
namespace {

/// The tangent of an op's operand: a matrix, the identity columns of a state row, or zero.
struct Tangent {
  float* rows = nullptr;  // units x h
  int stateColumn = -1;   // the identity at these columns of h
  bool zero() const { return !rows && stateColumn < 0; }
};

/// T (n x h) through the activation: rows scaled by f'(s), or J_softmax T column by column.
void activationTangent(Activation a, const float* y, float* t, int n, int h) {
  if (a == Activation::Identity) return;
  if (a == Activation::Softmax) {
    std::vector<float> dot(static_cast<std::size_t>(h), 0.0f);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < h; ++k) dot[k] += y[i] * t[static_cast<std::size_t>(i) * h + k];
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < h; ++k) {
        float& v = t[static_cast<std::size_t>(i) * h + k];
        v = y[i] * (v - dot[k]);
      }
    return;
  }
  for (int i = 0; i < n; ++i) {
    const float f = math::derivativeFromOutput(a, y[i]);
    float* row = t + static_cast<std::size_t>(i) * h;
    for (int k = 0; k < h; ++k) row[k] *= f;
  }
}

/// T_dst += scale_i * T_a row by row (scale: per-unit weights, or `sign` alone).
void addScaled(float* dst, const Tangent& a, const float* w, float sign, int n, int h) {
  const std::size_t hh = static_cast<std::size_t>(h);
  for (int i = 0; i < n; ++i) {
    const float f = sign * (w ? w[i] : 1.0f);
    if (a.stateColumn >= 0) {
      dst[i * hh + a.stateColumn + i] += f;
      continue;
    }
    const float* from = a.rows + i * hh;
    for (std::size_t k = 0; k < hh; ++k) dst[i * hh + k] += f * from[k];
  }
}

/// T_dst += diag(values) T_a.
void addTimes(float* dst, const Tangent& a, const float* values, int n, int h) {
  if (a.zero()) return;
  const std::size_t hh = static_cast<std::size_t>(h);
  for (int i = 0; i < n; ++i) {
    if (a.stateColumn >= 0) {
      dst[i * hh + a.stateColumn + i] += values[i];
      continue;
    }
    for (std::size_t k = 0; k < hh; ++k) dst[i * hh + k] += values[i] * a.rows[i * hh + k];
  }
}

}  // namespace

void NodeStep::stateJacobian(const ParameterSet& params, const Tape& tape, std::span<float> d,
                             std::vector<float>& scratch) const {
  const int h = m_stateSize;
  if (static_cast<std::int64_t>(d.size()) != static_cast<std::int64_t>(h) * h)
    throw std::invalid_argument("state Jacobian: got " + std::to_string(d.size()) +
                                " floats, expected |h|² = " + std::to_string(h * h));
  const Graph& g = m_plan.graph();
  const std::size_t hh = static_cast<std::size_t>(h);
  const std::size_t units = static_cast<std::size_t>(m_unitCount);
  // Tangents of y, s, the factors and the stack; then the running product of a multiplicative
  // layer's factors (its s before each MulInto).
  // Every tangent is written before it is read (Fill, Copy, Mul, Activate, a product with beta
  // 0): no clearing.
  scratch.resize((2 * units + m_zCount + m_stackWidth) * hh + units);
  float* ty = scratch.data();
  float* ts = ty + units * hh;
  float* tz = ts + units * hh;
  float* tstack = tz + static_cast<std::size_t>(m_zCount) * hh;
  float* partial = tstack + static_cast<std::size_t>(m_stackWidth) * hh;
  const float* theta = params.values().data();
  const auto tangentOf = [&](const op::Ref& ref) -> Tangent {
    switch (ref.buffer) {
      case op::Buffer::Value:
        if (m_unitOffset[ref.index] < 0) return {};  // external
        if (ref.shift > 0) return {nullptr, m_stateOffset[ref.index]};
        return {ty + m_unitOffset[ref.index] * hh};
      case op::Buffer::Sum:
        return {ts + m_unitOffset[ref.index] * hh};
      case op::Buffer::Factor:
        return {tz + m_factorOffset[ref.index] * hh};
      case op::Buffer::Stack:
        return {tstack + ref.index * hh};
      default:
        return {};  // bias, zeros
    }
  };
  // The primal value of a factor or a member's y (what a product's tangent rule multiplies by).
  const auto valueOf = [&](const op::Ref& ref) -> const float* {
    if (ref.buffer == op::Buffer::Factor) return tape.z.data() + m_factorOffset[ref.index];
    return tape.y.data() + m_unitOffset[ref.index];
  };
  for (const BoundOp& bound : m_forward) {
    const op::Op& op = bound.op;
    const Tangent dst = tangentOf(op.dst);
    const Tangent a = tangentOf(op.a);
    const std::size_t n = static_cast<std::size_t>(op.units);
    const float* w = op.weights >= 0 ? theta + op.weights : nullptr;
    float* t = dst.rows;
    switch (op.kind) {
      case op::Kind::Fill:
        std::fill_n(t, n * hh, 0.0f);
        break;
      case op::Kind::Add:
      case op::Kind::AddScaled:
      case op::Kind::Subtract:
      case op::Kind::AddComplement:
        if (!a.zero())
          addScaled(t, a, w, op.kind == op::Kind::Add || op.kind == op::Kind::AddScaled ? 1 : -1,
                    op.units, h);
        break;
      case op::Kind::Product:  // T_dst = beta T_dst + W T_a
        if (op.beta == 0.0f) std::fill_n(t, n * hh, 0.0f);
        if (a.stateColumn >= 0) {
          for (std::size_t i = 0; i < n; ++i)
            for (int j = 0; j < op.inner; ++j) t[i * hh + a.stateColumn + j] += w[i * op.ldw + j];
        } else if (a.rows) {
          sgemm(false, false, op.units, h, op.inner, 1.0f, w, op.ldw, a.rows, h, 1.0f, t, h);
        }
        break;
      case op::Kind::Copy:  // a single factor: s = z
        std::fill_n(t, n * hh, 0.0f);
        if (!a.zero()) addScaled(t, a, nullptr, 1.0f, op.units, h);
        std::copy_n(valueOf(op.a), n, partial + m_unitOffset[op.layer]);
        break;
      case op::Kind::Mul: {  // s = a b: T = diag(b) T_a + diag(a) T_b
        const float* va = valueOf(op.a);
        const float* vb = valueOf(op.b);
        std::fill_n(t, n * hh, 0.0f);
        addTimes(t, a, vb, op.units, h);
        addTimes(t, tangentOf(op.b), va, op.units, h);
        float* p = partial + m_unitOffset[op.layer];
        for (std::size_t i = 0; i < n; ++i) p[i] = va[i] * vb[i];
        break;
      }
      case op::Kind::MulInto: {  // s *= a: T = diag(a) T_s + diag(s before) T_a
        const float* va = valueOf(op.a);
        float* p = partial + m_unitOffset[op.layer];
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t k = 0; k < hh; ++k) t[i * hh + k] *= va[i];
        addTimes(t, a, p, op.units, h);
        for (std::size_t i = 0; i < n; ++i) p[i] *= va[i];
        break;
      }
      case op::Kind::Activate:  // T_y = f'(s) T_s
        if (t != a.rows) std::copy_n(a.rows, n * hh, t);
        activationTangent(op.activation, tape.y.data() + m_unitOffset[op.layer], t, op.units, h);
        break;
      default:
        throw std::logic_error(std::string("node step: no tangent rule for op kind ") +
                               std::to_string(static_cast<int>(op.kind)) + " in a forward region");
    }
  }
  for (int l : m_stateLayers)
    std::copy_n(ty + static_cast<std::size_t>(m_unitOffset[l]) * hh,
                static_cast<std::size_t>(g.layers[l].size) * hh,
                d.data() + static_cast<std::size_t>(m_stateOffset[l]) * hh);
}

}  // namespace rnnwb
