#include "rnnwb/core/engine/parameter_set.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <tuple>

#include "rnnwb/core/check.hpp"
#include "rnnwb/core/connection_mask.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/memory_size.hpp"

namespace rnnwb {
namespace {

// Full connections that an engine may stack: same source, same delay, targets in the same node.
// Grouped by that key in one pass (comparing every pair took minutes on a 200,000-layer chain).
using StackKey = std::tuple<int, int, int, int>;  // from, delay, delayY, node of the target

StackKey stackKey(const CompiledPlan& plan, int c) {
  const Connection& connection = plan.graph().connections[c];
  return {plan.fromLayer(c), connection.delay, connection.delayY,
          plan.nodeOfLayer(plan.toLayer(c))};
}

std::map<StackKey, std::vector<int>> stacks(const CompiledPlan& plan) {
  std::map<StackKey, std::vector<int>> groups;
  const auto& connections = plan.graph().connections;
  for (int c = 0; c < static_cast<int>(connections.size()); ++c)
    if (connections[c].type == ConnectionType::Full) groups[stackKey(plan, c)].push_back(c);
  return groups;
}

Shape weightShape(const Connection& connection, const Layer& from, const Layer& to) {
  switch (connection.type) {
    case ConnectionType::Full:
      return {to.size, from.size};
    case ConnectionType::Block:  // PyTorch's Conv2d layout
      return {to.size, from.size, connection.block[1], connection.block[0]};
    default:
      return {to.size};
  }
}

}  // namespace

ParameterLayout::ParameterLayout(const CompiledPlan& plan) {
  const Graph& graph = plan.graph();
  const int connectionCount = static_cast<int>(graph.connections.size());
  m_viewOfConnection.assign(connectionCount, -1);
  m_viewOfLayer.assign(graph.layers.size(), -1);
  auto addWeight = [&](int c) {
    const Connection& connection = graph.connections[c];
    const Layer& from = graph.layers[plan.fromLayer(c)];
    const Layer& to = graph.layers[plan.toLayer(c)];
    ParameterView view;
    view.key = "connections." + connection.id + ".weight";
    view.shape = weightShape(connection, from, to);
    view.trainable = connection.trainable;
    view.offset = m_size;
    view.size = static_cast<std::size_t>(elementCount(view.shape));
    view.connection = c;
    addToSize(view.size);
    m_viewOfConnection[c] = static_cast<int>(m_views.size());
    m_views.push_back(std::move(view));
  };
  // Each stack's weights lie together, in the order of its first connection, then by index.
  const auto groups = stacks(plan);
  for (int c = 0; c < connectionCount; ++c) {
    const Connection& connection = graph.connections[c];
    if (!connection.hasWeight() || m_viewOfConnection[c] >= 0) continue;
    if (connection.type != ConnectionType::Full) {
      addWeight(c);
      continue;
    }
    for (int member : groups.at(stackKey(plan, c))) addWeight(member);
  }
  for (int l = 0; l < static_cast<int>(graph.layers.size()); ++l) {
    const Layer& layer = graph.layers[l];
    if (layer.kind != LayerKind::Additive || !layer.bias) continue;
    ParameterView view;
    view.key = "layers." + layer.id + ".bias";
    view.shape = {layer.size};
    view.offset = m_size;
    view.size = static_cast<std::size_t>(layer.size);
    view.layer = l;
    view.trainable = layer.biasTrainable;
    addToSize(view.size);
    m_viewOfLayer[l] = static_cast<int>(m_views.size());
    m_views.push_back(std::move(view));
  }
  // Refused before any weight is allocated, with the bytes needed (not a bare std::bad_alloc).
  requireMemory(m_size == kTooMany ? std::nullopt : checkedProduct({m_size, sizeof(float)}),
                "the " +
                    (m_size == kTooMany ? std::string("parameters")
                                        : std::to_string(m_size) + " parameters") +
                    " of graph '" + graph.name + "'");
}

void ParameterLayout::addToSize(std::size_t count) {
  if (m_size == kTooMany || __builtin_add_overflow(m_size, count, &m_size)) m_size = kTooMany;
}

const ParameterView* ParameterLayout::connectionWeight(int connection) const {
  const int v = m_viewOfConnection.at(connection);
  return v < 0 ? nullptr : &m_views[v];
}

const ParameterView* ParameterLayout::layerBias(int layer) const {
  const int v = m_viewOfLayer.at(layer);
  return v < 0 ? nullptr : &m_views[v];
}

const ParameterView* ParameterLayout::find(std::string_view key) const {
  for (const ParameterView& view : m_views)
    if (view.key == key) return &view;
  return nullptr;
}

bool ParameterLayout::operator==(const ParameterLayout& other) const {
  if (m_size != other.m_size || m_views.size() != other.m_views.size()) return false;
  for (std::size_t i = 0; i < m_views.size(); ++i)
    if (m_views[i].key != other.m_views[i].key || m_views[i].offset != other.m_views[i].offset ||
        m_views[i].shape != other.m_views[i].shape)
      return false;
  return true;
}

ParameterSet::ParameterSet(const CompiledPlan& plan)
    : m_layout(std::make_shared<const ParameterLayout>(plan)), m_values(m_layout->size(), 0.0f) {
  const Graph& graph = plan.graph();
  std::vector<float> mask;
  for (const ParameterView& view : m_layout->views()) {
    if (view.connection < 0 || !graph.connections[view.connection].isSparse()) continue;
    if (mask.empty()) mask.assign(m_values.size(), 1.0f);
    const auto bits =
        rnnwb::connectionMask(graph.connections[view.connection], static_cast<int>(view.shape[0]),
                              static_cast<int>(view.shape[1]));
    for (std::size_t i = 0; i < view.size; ++i) mask[view.offset + i] = bits[i] ? 1.0f : 0.0f;
  }
  if (!mask.empty()) m_mask = std::make_shared<const std::vector<float>>(std::move(mask));
}

ParameterSet::ParameterSet(std::shared_ptr<const ParameterLayout> layout,
                           std::shared_ptr<const std::vector<float>> mask)
    : m_layout(std::move(layout)), m_mask(std::move(mask)), m_values(m_layout->size(), 0.0f) {}

ParameterSet ParameterSet::zerosLike(const ParameterSet& other) {
  return ParameterSet(other.m_layout, other.m_mask);
}

std::span<float> ParameterSet::view(const ParameterView& view) {
  WB_CHECK(view.offset + view.size <= m_values.size(), "view '" + view.key + "' out of range");
  return std::span<float>(m_values).subspan(view.offset, view.size);
}

std::span<const float> ParameterSet::view(const ParameterView& view) const {
  WB_CHECK(view.offset + view.size <= m_values.size(), "view '" + view.key + "' out of range");
  return std::span<const float>(m_values).subspan(view.offset, view.size);
}

std::span<float> ParameterSet::at(std::string_view key) {
  const ParameterView* v = m_layout->find(key);
  if (!v) throw std::out_of_range("no parameter '" + std::string(key) + "'");
  return view(*v);
}

std::span<const float> ParameterSet::at(std::string_view key) const {
  const ParameterView* v = m_layout->find(key);
  if (!v) throw std::out_of_range("no parameter '" + std::string(key) + "'");
  return view(*v);
}

std::span<const float> ParameterSet::mask() const {
  if (!m_mask) return {};
  return *m_mask;
}

std::span<const float> ParameterSet::connectionMask(int connection) const {
  const ParameterView* v = m_layout->connectionWeight(connection);
  if (!m_mask || !v) return {};
  const auto part = std::span<const float>(*m_mask).subspan(v->offset, v->size);
  // A connection whose mask is all ones has no mask, as far as callers are concerned.
  if (std::all_of(part.begin(), part.end(), [](float m) { return m == 1.0f; })) return {};
  return part;
}

void ParameterSet::setMask(std::vector<float> mask) {
  if (mask.empty()) {
    m_mask.reset();
    return;
  }
  WB_CHECK(mask.size() == m_values.size(), "a mask of " + std::to_string(mask.size()) +
                                               " values for " + std::to_string(m_values.size()) +
                                               " parameters");
  m_mask = std::make_shared<const std::vector<float>>(std::move(mask));
  applyMasks();
}

void ParameterSet::applyMasks() {
  if (!m_mask) return;
  const std::vector<float>& mask = *m_mask;
  for (std::size_t i = 0; i < m_values.size(); ++i)
    if (mask[i] == 0.0f) m_values[i] = 0.0f;
}

void ParameterSet::fill(float value) {
  std::fill(m_values.begin(), m_values.end(), value);
  if (value != 0.0f) applyMasks();
}

bool ParameterSet::allFinite() const { return rnnwb::allFinite(m_values); }

bool allFinite(std::span<const float> values) {
  // On the bits, so that the loop vectorises (std::isfinite per value does not): a float is
  // NaN or infinite when its exponent bits are all ones. Every gradient check runs this.
  std::uint32_t nonFinite = 0;
  for (const float v : values)
    nonFinite |= (std::bit_cast<std::uint32_t>(v) & 0x7f800000u) == 0x7f800000u;
  return nonFinite == 0;
}

}  // namespace rnnwb
