#include "rnnwb/core/engine/engine_program.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace rnnwb::cpu {
namespace {

std::vector<ConnectionOp> lowerConnections(const CompiledPlan& plan, const ParameterLayout& layout,
                                           int& zBufferCount) {
  const Graph& graph = plan.graph();
  std::vector<ConnectionOp> ops;
  for (int c = 0; c < static_cast<int>(graph.connections.size()); ++c) {
    ConnectionOp op = connectionOp(plan, c);
    if (const ParameterView* view = layout.connectionWeight(c)) op.weightOffset = view->offset;
    if (graph.layers[op.to].kind == LayerKind::Multiplicative) op.zBuffer = zBufferCount++;
    ops.push_back(op);
  }
  return ops;
}

// Splits full connections with one source and delay into runs whose weights are contiguous.
std::vector<StackedGroup> stack(const std::vector<ConnectionOp>& ops, std::vector<int> members) {
  std::sort(members.begin(), members.end(),
            [&](int a, int b) { return ops[a].weightOffset < ops[b].weightOffset; });
  std::vector<StackedGroup> groups;
  for (int c : members) {
    const ConnectionOp& op = ops[c];
    const bool extends = !groups.empty() &&
                         groups.back().weightOffset + static_cast<std::size_t>(groups.back().rows) *
                                                          groups.back().cols ==
                             op.weightOffset;
    if (!extends) {
      groups.push_back({op.from, op.delay, op.delayY, {}, op.weightOffset, 0, op.cols});
    }
    groups.back().connections.push_back(c);
    groups.back().rows += op.rows;
  }
  return groups;
}

void lowerRecurrentNode(const CompiledPlan& plan, const std::vector<ConnectionOp>& ops,
                        NodeOp& node) {
  const int nodeIndex = plan.nodeOfLayer(node.layers.front());
  std::map<std::tuple<int, int, int>, std::vector<int>> delayedFull;
  std::map<int, std::vector<int>> zeroFull;
  std::map<int, int> position;
  for (int p = 0; p < static_cast<int>(node.layers.size()); ++p) position[node.layers[p]] = p;
  node.zeroGroups.resize(node.layers.size());
  node.zeroOther.resize(node.layers.size());
  for (int layer : node.layers) {
    for (int c : plan.anterior(layer)) {
      const ConnectionOp& op = ops[c];
      if (plan.nodeOfLayer(op.from) != nodeIndex) {
        node.external.push_back(c);
      } else if (op.delayed()) {
        if (op.type == ConnectionType::Full)
          delayedFull[{op.from, op.delay, op.delayY}].push_back(c);
        else
          node.delayedOther.push_back(c);
      } else {
        if (op.type == ConnectionType::Full)
          zeroFull[op.from].push_back(c);
        else
          node.zeroOther[position.at(op.from)].push_back(c);
      }
    }
  }
  for (auto& [key, members] : delayedFull)
    for (StackedGroup& g : stack(ops, members)) node.delayedGroups.push_back(std::move(g));
  for (auto& [from, members] : zeroFull) node.zeroGroups[position.at(from)] = stack(ops, members);
}

}  // namespace

ConnectionOp connectionOp(const CompiledPlan& plan, int c) {
  const Graph& graph = plan.graph();
  ConnectionOp op;
  op.index = c;
  op.from = plan.fromLayer(c);
  op.to = plan.toLayer(c);
  op.type = graph.connections[c].type;
  const Connection& connection = graph.connections[c];
  op.delay = connection.delay;
  op.delayY = connection.delayY;
  op.rows = graph.layers[op.to].size;
  op.cols = graph.layers[op.from].size;
  if (op.type == ConnectionType::Block) {
    op.blockX = connection.block[0];
    op.blockY = connection.block[1];
  }
  op.reduce = connection.reduce != ReduceAxis::None;
  op.trainable = connection.trainable;
  return op;
}

Program lowerPlan(const CompiledPlan& plan, const ParameterLayout& layout) {
  Program program;
  program.connections = lowerConnections(plan, layout, program.zBufferCount);
  for (const SccNode& scc : plan.nodes()) {
    NodeOp node;
    node.recurrent = scc.recurrent;
    node.layers = scc.innerOrder;
    if (node.recurrent) {
      lowerRecurrentNode(plan, program.connections, node);
    } else {
      node.external = plan.anterior(node.layers.front());
    }
    for (const auto& g : node.delayedGroups)
      program.widestGroupRows = std::max(program.widestGroupRows, g.rows);
    for (const auto& groups : node.zeroGroups)
      for (const auto& g : groups)
        program.widestGroupRows = std::max(program.widestGroupRows, g.rows);
    program.nodes.push_back(std::move(node));
  }
  return program;
}

}  // namespace rnnwb::cpu
