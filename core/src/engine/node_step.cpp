// One frame of one node for one stream (node_step.hpp): forward, VJP and D_t. Single stream, so
// full connections are sgemv / sger; the tangents of D_t are one sgemm per inner delay-0 full
// connection.
#include "rnnwb/core/engine/node_step.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "rnnwb/core/engine/activation_math.hpp"
#include "rnnwb/core/engine/products.hpp"

namespace rnnwb {
namespace {

// One loop per activation (the switch outside it), so that the compiler vectorizes each: RTRL
// steps one frame of one stream at a time, where these loops are a good part of the work.

/// y = f(s) over a layer of n units.
void activate(Activation a, const float* s, float* y, int n) {
  switch (a) {
    case Activation::Softmax:
      math::softmax(s, y, n);
      return;
    case Activation::Sigmoid:
      for (int i = 0; i < n; ++i) y[i] = math::sigmoid(s[i]);
      return;
    case Activation::Tanh:
      for (int i = 0; i < n; ++i) y[i] = math::tanhApprox(s[i]);
      return;
    default:
      for (int i = 0; i < n; ++i) y[i] = math::activate(a, s[i]);
  }
}

/// dy -> ds through the activation of a layer (size n), given y.
void activationBackward(Activation a, const float* y, const float* dy, float* ds, int n) {
  switch (a) {
    case Activation::Softmax:
      math::softmaxBackward(y, dy, ds, n);
      return;
    case Activation::Sigmoid:
      for (int i = 0; i < n; ++i) ds[i] = dy[i] * (y[i] * (1.0f - y[i]));
      return;
    case Activation::Tanh:
      for (int i = 0; i < n; ++i) ds[i] = dy[i] * (1.0f - y[i] * y[i]);
      return;
    default:
      for (int i = 0; i < n; ++i) ds[i] = dy[i] * math::derivativeFromOutput(a, y[i]);
  }
}

}  // namespace

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
  m_inputs.resize(g.layers.size());
  for (int l : m_layers) {
    m_unitOffset[l] = m_unitCount;
    m_unitCount += g.layers[l].size;
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
    const bool multiplicative = g.layers[l].kind == LayerKind::Multiplicative;
    for (int c : plan.anterior(l)) {
      Input in{c, plan.fromLayer(c), -1, g.connections[c].delay, -1};
      if (plan.nodeOfLayer(in.from) != node) {
        in.external = static_cast<int>(m_external.size());
        m_external.push_back(c);
      } else if (in.delay > 1) {
        throw std::invalid_argument("connection '" + g.connections[c].id +
                                    "' inside the node of '" + g.layers[l].id + "' has delay " +
                                    std::to_string(in.delay) +
                                    "; a one-frame step needs delay 1 inside a node");
      }
      if (multiplicative) {
        in.zOffset = m_zCount;
        m_zCount += g.layers[l].size;
      }
      m_inputs[l].push_back(in);
    }
  }
}

int NodeStep::unitOffset(int layer) const {
  return layer >= 0 && layer < static_cast<int>(m_unitOffset.size()) ? m_unitOffset[layer] : -1;
}

int NodeStep::stateOffset(int layer) const {
  return layer >= 0 && layer < static_cast<int>(m_stateOffset.size()) ? m_stateOffset[layer] : -1;
}

int NodeStep::productOffset(int connection) const {
  const int to = m_plan.toLayer(connection);
  if (m_unitOffset[to] < 0) return -1;
  for (const Input& in : m_inputs[to])
    if (in.connection == connection) return in.zOffset;
  return -1;
}

NodeStep::Tape NodeStep::makeTape() const {
  Tape tape;
  tape.s.assign(m_unitCount, 0.0f);
  tape.y.assign(m_unitCount, 0.0f);
  tape.z.assign(m_zCount, 0.0f);
  return tape;
}

const float* NodeStep::sourceOf(const Input& in, std::span<const float* const> external,
                                std::span<const float> prevState, const Tape& tape) const {
  if (in.external >= 0) return external[in.external];
  if (in.delay == 1) return prevState.data() + m_stateOffset[in.from];
  return tape.y.data() + m_unitOffset[in.from];
}

void NodeStep::forwardLayer(const ParameterSet& params, int l,
                            std::span<const float* const> external,
                            std::span<const float> prevState, Tape& tape) const {
  const Layer& spec = m_plan.graph().layers[l];
  const int n = spec.size;
  float* s = tape.s.data() + m_unitOffset[l];
  const bool multiplicative = spec.kind == LayerKind::Multiplicative;
  const ParameterView* bias = m_layout.layerBias(l);
  if (bias && !multiplicative)
    std::copy_n(params.values().data() + bias->offset, n, s);
  else
    std::fill_n(s, n, 0.0f);
  bool first = true;
  for (const Input& in : m_inputs[l]) {
    float* z = multiplicative ? tape.z.data() + in.zOffset : s;
    if (multiplicative) std::fill_n(z, n, 0.0f);
    const float* x = sourceOf(in, external, prevState, tape);
    const Connection& c = m_plan.graph().connections[in.connection];
    if (c.type == ConnectionType::Full) {
      const int cols = m_plan.graph().layers[in.from].size;
      const float* w = params.values().data() + m_layout.connectionWeight(in.connection)->offset;
      sgemv(false, n, cols, 1.0f, w, cols, x, 1.0f, z);
    } else if (c.type == ConnectionType::Diagonal) {
      const float* w = params.values().data() + m_layout.connectionWeight(in.connection)->offset;
      for (int i = 0; i < n; ++i) z[i] += w[i] * x[i];
    } else {
      for (int i = 0; i < n; ++i) z[i] += x[i];
    }
    if (multiplicative) {
      if (first)
        std::copy_n(z, n, s);
      else
        for (int i = 0; i < n; ++i) s[i] *= z[i];
    }
    first = false;
  }
  activate(spec.activation, s, tape.y.data() + m_unitOffset[l], n);
}

void NodeStep::forward(const ParameterSet& params, std::span<const float* const> external,
                       std::span<const float> prevState, Tape& tape) const {
  if (external.size() != m_external.size() || static_cast<int>(prevState.size()) < m_stateSize)
    throw std::invalid_argument(
        "node step: got " + std::to_string(external.size()) + " external inputs and a state of " +
        std::to_string(prevState.size()) + ", expected " + std::to_string(m_external.size()) +
        " and " + std::to_string(m_stateSize));
  for (int l : m_inner) forwardLayer(params, l, external, prevState, tape);
}

void NodeStep::readState(const Tape& tape, std::span<float> state) const {
  for (int l : m_stateLayers)
    std::copy_n(tape.y.data() + m_unitOffset[l], m_plan.graph().layers[l].size,
                state.data() + m_stateOffset[l]);
}

void NodeStep::vjp(const ParameterSet& params, std::span<const float* const> external,
                   std::span<const float> prevState, const Tape& tape, std::span<const float> v,
                   const Cotangents& out, std::vector<float>& scratch,
                   std::span<const float> vOnSums) const {
  const Graph& g = m_plan.graph();
  int widest = 0;
  for (int l : m_layers) widest = std::max(widest, g.layers[l].size);
  scratch.resize(static_cast<std::size_t>(m_unitCount) + 2 * widest);
  float* dy = scratch.data();
  float* ds = dy + m_unitCount;
  float* dz = ds + widest;
  std::copy_n(v.data(), m_unitCount, dy);
  const float* theta = params.values().data();
  for (auto it = m_inner.rbegin(); it != m_inner.rend(); ++it) {
    const int l = *it;
    const Layer& spec = g.layers[l];
    const int n = spec.size;
    activationBackward(spec.activation, tape.y.data() + m_unitOffset[l], dy + m_unitOffset[l], ds,
                       n);
    if (!vOnSums.empty())
      for (int i = 0; i < n; ++i) ds[i] += vOnSums[m_unitOffset[l] + i];
    if (!out.sums.empty())
      for (int i = 0; i < n; ++i) out.sums[m_unitOffset[l] + i] += ds[i];
    const bool multiplicative = spec.kind == LayerKind::Multiplicative;
    const ParameterView* bias = m_layout.layerBias(l);
    if (bias && !multiplicative && !out.params.empty())
      for (int i = 0; i < n; ++i) out.params[bias->offset + i] += ds[i];
    for (const Input& in : m_inputs[l]) {
      std::copy_n(ds, n, dz);
      if (multiplicative)
        for (const Input& other : m_inputs[l])
          if (other.zOffset != in.zOffset)
            for (int i = 0; i < n; ++i) dz[i] *= tape.z[other.zOffset + i];
      if (multiplicative && !out.products.empty())
        for (int i = 0; i < n; ++i) out.products[in.zOffset + i] += dz[i];
      float* dx = nullptr;
      if (in.external >= 0)
        dx = out.external.empty() ? nullptr : out.external[in.external];
      else if (in.delay == 1)
        dx = out.prevState.empty() ? nullptr : out.prevState.data() + m_stateOffset[in.from];
      else
        dx = dy + m_unitOffset[in.from];
      const float* x = sourceOf(in, external, prevState, tape);
      const Connection& c = g.connections[in.connection];
      if (c.type == ConnectionType::Identity) {
        if (dx)
          for (int i = 0; i < n; ++i) dx[i] += dz[i];
        continue;
      }
      const std::size_t offset = m_layout.connectionWeight(in.connection)->offset;
      const float* w = theta + offset;
      if (c.type == ConnectionType::Diagonal) {
        if (dx)
          for (int i = 0; i < n; ++i) dx[i] += w[i] * dz[i];
        if (!out.params.empty())
          for (int i = 0; i < n; ++i) out.params[offset + i] += dz[i] * x[i];
        continue;
      }
      const int cols = g.layers[in.from].size;
      if (dx) sgemv(true, n, cols, 1.0f, w, cols, dz, 1.0f, dx);
      if (out.params.empty()) continue;
      float* dw = out.params.data() + offset;
      sger(n, cols, 1.0f, dz, x, dw, cols);
      const std::span<const float> mask = params.connectionMask(in.connection);
      for (std::size_t i = 0; i < mask.size(); ++i) dw[i] *= mask[i];
    }
  }
}

}  // namespace rnnwb
