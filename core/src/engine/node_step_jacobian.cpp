// D_t = ∂h_t/∂h_{t-1} of a node step (node_step.hpp) by forward-mode propagation: every member
// layer carries its tangent T_l = ∂y_l/∂h_{t-1} (size_l x |h|, row-major). Delayed connections
// read h_{t-1} itself, whose tangent is the identity, so they only place their weights into T;
// delay-0 connections inside the node multiply the source's tangent by their weights.

#include <algorithm>
#include <stdexcept>
#include <string>

#include "rnnwb/core/engine/activation_math.hpp"
#include "rnnwb/core/engine/node_step.hpp"
#include "rnnwb/core/engine/products.hpp"

namespace rnnwb {
namespace {

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

}  // namespace

void NodeStep::stateJacobian(const ParameterSet& params, const Tape& tape, std::span<float> d,
                             std::vector<float>& scratch) const {
  const int h = m_stateSize;
  if (static_cast<std::int64_t>(d.size()) != static_cast<std::int64_t>(h) * h)
    throw std::invalid_argument("state Jacobian: got " + std::to_string(d.size()) +
                                " floats, expected |h|² = " + std::to_string(h * h));
  const Graph& g = m_plan.graph();
  // Tangents of the layers (unit layout), then one z tangent for a multiplicative layer's input.
  int widest = 0;
  for (int l : m_layers) widest = std::max(widest, g.layers[l].size);
  const std::size_t hh = static_cast<std::size_t>(h);
  scratch.assign((static_cast<std::size_t>(m_unitCount) + widest) * hh, 0.0f);
  float* tz = scratch.data() + static_cast<std::size_t>(m_unitCount) * hh;
  const float* theta = params.values().data();
  for (int l : m_inner) {
    const Layer& spec = g.layers[l];
    const int n = spec.size;
    float* tl = scratch.data() + static_cast<std::size_t>(m_unitOffset[l]) * hh;
    const bool multiplicative = spec.kind == LayerKind::Multiplicative;
    for (const Input& in : m_inputs[l]) {
      if (in.external >= 0) continue;  // a constant of the step: tangent 0
      float* t = multiplicative ? tz : tl;
      if (multiplicative) std::fill_n(t, static_cast<std::size_t>(n) * hh, 0.0f);
      const Connection& c = g.connections[in.connection];
      const ParameterView* view = m_layout.connectionWeight(in.connection);
      const float* w = view ? theta + view->offset : nullptr;
      const int cols = g.layers[in.from].size;
      if (in.delay == 1) {
        const int o = m_stateOffset[in.from];
        for (int i = 0; i < n; ++i) {
          float* row = t + static_cast<std::size_t>(i) * hh + o;
          if (c.type == ConnectionType::Full)
            for (int j = 0; j < cols; ++j) row[j] += w[static_cast<std::size_t>(i) * cols + j];
          else
            row[i] += c.type == ConnectionType::Diagonal ? w[i] : 1.0f;
        }
      } else {
        const float* ts = scratch.data() + static_cast<std::size_t>(m_unitOffset[in.from]) * hh;
        if (c.type == ConnectionType::Full) {
          sgemm(false, false, n, h, cols, 1.0f, w, cols, ts, h, 1.0f, t, h);
        } else {
          for (int i = 0; i < n; ++i) {
            const float f = c.type == ConnectionType::Diagonal ? w[i] : 1.0f;
            for (int k = 0; k < h; ++k) t[i * hh + k] += f * ts[i * hh + k];
          }
        }
      }
      if (!multiplicative) continue;
      // ∂s/∂z_m = the product of the other factors.
      for (int i = 0; i < n; ++i) {
        float f = 1.0f;
        for (const Input& other : m_inputs[l])
          if (other.zOffset != in.zOffset) f *= tape.z[other.zOffset + i];
        for (int k = 0; k < h; ++k) tl[i * hh + k] += f * t[i * hh + k];
      }
    }
    activationTangent(spec.activation, tape.y.data() + m_unitOffset[l], tl, n, h);
  }
  for (int l : m_stateLayers)
    std::copy_n(scratch.data() + static_cast<std::size_t>(m_unitOffset[l]) * hh,
                static_cast<std::size_t>(g.layers[l].size) * hh,
                d.data() + static_cast<std::size_t>(m_stateOffset[l]) * hh);
}

}  // namespace rnnwb
