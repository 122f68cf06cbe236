#include "rnnwb/core/snap/rtrl_node_layout.hpp"

#include <algorithm>
#include <optional>

#include "rnnwb/core/connection_mask.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/memory_size.hpp"

namespace rnnwb::snap {
std::string recurrentNodeName(const CompiledPlan& plan, int node) {
  std::string names;
  for (int l : plan.nodes()[node].layers)
    names += (names.empty() ? "" : ", ") + plan.graph().layers[l].id;
  return "recurrent node {" + names + "}";
}

std::optional<std::string> rtrlRefusal(const CompiledPlan& plan, int node) {
  const Graph& g = plan.graph();
  std::vector<std::string> problems;
  // Version 2 (graph-format-v2.md): RTRL runs forward along time, in 1-D graphs.
  if (g.dimensions == 2) problems.push_back("the graph is 2-D (RTRL and SnAp run in 1-D graphs)");
  for (int c = 0; c < static_cast<int>(g.connections.size()); ++c) {
    const Connection& connection = g.connections[c];
    const bool fromInside = plan.nodeOfLayer(plan.fromLayer(c)) == node;
    const bool toInside = plan.nodeOfLayer(plan.toLayer(c)) == node;
    if (g.dimensions != 2 && connection.delay < 0 && (fromInside || toInside))
      problems.push_back("connection '" + connection.id + "' has delay " +
                         std::to_string(connection.delay) +
                         " (it reads ahead; RTRL runs forward in time)");
    if (connection.delay <= 1) continue;
    const std::string delay = std::to_string(connection.delay);
    if (fromInside && toInside)
      problems.push_back("connection '" + connection.id + "' inside it has delay " + delay +
                         " (RTRL needs delay 1 for every delayed connection inside a node)");
    else if (fromInside)
      problems.push_back("connection '" + connection.id + "' leaves it with delay " + delay +
                         " (RTRL needs a delay of at most 1 on connections leaving a node)");
  }
  if (problems.empty()) return std::nullopt;
  std::string message = recurrentNodeName(plan, node) + ": RTRL cannot take it: ";
  for (std::size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
  return message;
}

RtrlNodeLayout::RtrlNodeLayout(const CompiledPlan& plan, int node) : m_plan(&plan), m_node(node) {
  if (node < 0 || node >= static_cast<int>(plan.nodes().size()) || !plan.nodes()[node].recurrent)
    throw std::invalid_argument("node " + std::to_string(node) + " is not a recurrent node");
  if (auto refusal = rtrlRefusal(plan, node)) throw RtrlRefusal(*refusal);
  const Graph& g = plan.graph();
  m_layers = plan.nodes()[node].layers;
  std::sort(m_layers.begin(), m_layers.end());
  for (int l : m_layers) {
    m_unitOffsets[l] = m_unitCount;
    m_unitCount += g.layers[l].size;
    const bool isState =
        std::any_of(plan.posterior(l).begin(), plan.posterior(l).end(), [&](int c) {
          return g.connections[c].delay > 0 && plan.nodeOfLayer(plan.toLayer(c)) == node;
        });
    if (!isState) continue;
    m_state.push_back({l, m_stateSize, g.layers[l].size});
    m_stateSize += g.layers[l].size;
  }
  // How each connection into the node makes its term, by the lowering's rule (no parameter
  // layout: the mask command reads graphs that the engines refuse).
  m_terms.resize(g.connections.size());
  for (int c = 0; c < static_cast<int>(g.connections.size()); ++c)
    if (plan.nodeOfLayer(plan.toLayer(c)) == node)
      m_terms[c] = op::termCoefficient(op::connectionTerm(plan, c));
  collectParameters();
}

// Bytes the layout and the SnAp patterns built on it take at most: per weight of a full
// connection its mask byte, its unit here and its column there (4 + 4); per other parameter 8.
// Checked before any of it is allocated: a 65,536-unit layer needs 36 GiB, and finding that out
// by bad_alloc took minutes.
std::optional<std::uint64_t> rtrlLayoutBytes(const CompiledPlan& plan, int node) {
  const Graph& g = plan.graph();
  std::optional<std::uint64_t> bytes = 0;
  auto add = [&](std::optional<std::uint64_t> more) {
    if (bytes && more && !__builtin_add_overflow(*bytes, *more, &*bytes)) return;
    bytes = std::nullopt;
  };
  for (int c = 0; c < static_cast<int>(g.connections.size()); ++c) {
    const int to = plan.toLayer(c);
    if (plan.nodeOfLayer(to) != node) continue;
    const std::uint64_t rows = static_cast<std::uint64_t>(g.layers[to].size);
    if (g.connections[c].type == ConnectionType::Full)
      add(checkedProduct({rows, static_cast<std::uint64_t>(g.layers[plan.fromLayer(c)].size), 9}));
    else
      add(rows * 8);
  }
  for (int l : plan.nodes()[node].layers) add(static_cast<std::uint64_t>(g.layers[l].size) * 8);
  return bytes;
}

void RtrlNodeLayout::requireMemoryForParameters() const {
  requireMemory(rtrlLayoutBytes(*m_plan, m_node),
                "RTRL's parameter layout of " + recurrentNodeName(*m_plan, m_node));
}

void RtrlNodeLayout::collectParameters() {
  requireMemoryForParameters();
  const Graph& g = m_plan->graph();
  for (int c = 0; c < static_cast<int>(g.connections.size()); ++c) {
    const int to = m_plan->toLayer(c);
    if (m_plan->nodeOfLayer(to) != m_node) continue;
    const Connection& connection = g.connections[c];
    const int unit0 = unitOffset(to);
    ParameterBlock block{ParameterBlock::Kind::Weight, c, m_parameterCount, 0};
    if (term(c).dense) {
      const int rows = g.layers[to].size, cols = g.layers[m_plan->fromLayer(c)].size;
      auto& mask = m_masks[c] = rnnwb::connectionMask(connection, rows, cols);
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
          if (mask[static_cast<std::size_t>(i) * cols + j]) m_parameterUnits.push_back(unit0 + i);
    } else if (term(c).weighted) {
      for (int i = 0; i < g.layers[to].size; ++i) m_parameterUnits.push_back(unit0 + i);
    }
    block.count = static_cast<std::int64_t>(m_parameterUnits.size()) - m_parameterCount;
    m_parameterCount += block.count;
    if (block.count > 0) m_blocks.push_back(block);
  }
  for (int l : m_layers) {
    if (!g.layers[l].bias) continue;
    const int size = g.layers[l].size;
    m_blocks.push_back({ParameterBlock::Kind::Bias, l, m_parameterCount, size});
    for (int i = 0; i < size; ++i) m_parameterUnits.push_back(unitOffset(l) + i);
    m_parameterCount += size;
  }
}

int RtrlNodeLayout::stateOffset(int layer) const {
  for (const StateLayer& s : m_state)
    if (s.layer == layer) return s.offset;
  return -1;
}

int RtrlNodeLayout::unitOffset(int layer) const {
  auto it = m_unitOffsets.find(layer);
  return it == m_unitOffsets.end() ? -1 : it->second;
}

const std::vector<std::uint8_t>& RtrlNodeLayout::weightMask(int connection) const {
  auto it = m_masks.find(connection);
  if (it == m_masks.end())
    throw std::invalid_argument("connection " + std::to_string(connection) +
                                " is not a full connection into the node");
  return it->second;
}

bool RtrlNodeLayout::isInternal(int connection) const {
  return m_plan->nodeOfLayer(m_plan->fromLayer(connection)) == m_node &&
         m_plan->nodeOfLayer(m_plan->toLayer(connection)) == m_node;
}

}  // namespace rnnwb::snap
