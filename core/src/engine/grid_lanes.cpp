#include "grid_lanes.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace rnnwb::grid {
namespace {

using op::Buffer;
using op::Kind;

// What an op touches besides the parameters (read only) and a lane's own scratch and stack: a
// layer's or factor's buffer, a loss gradient, and parameter gradients (Footprint's ranges).
enum class Resource : int { Layer, LossGradient };
using Touched = std::pair<int, std::int64_t>;  // (kind, buffer * 2^32 + index) or (kind, layer)

bool isGradientKind(Kind kind) {
  return kind == Kind::WeightGradient || kind == Kind::DiagonalWeightGradient ||
         kind == Kind::BiasGradient;
}

struct Footprint {
  std::set<Touched> reads, writes;
  // The parameter gradients added into, as [first, last) offsets: no two nodes share a weight
  // today, but a range cannot miss an overlap that a stacked product's offset would.
  std::vector<std::pair<std::int64_t, std::int64_t>> gradientRanges;

  static bool touched(const op::Ref& ref, Touched& out) {
    switch (ref.buffer) {
      case Buffer::Value:
      case Buffer::ValueGrad:
      case Buffer::Sum:
      case Buffer::SumGrad:
      case Buffer::Factor:
      case Buffer::FactorGrad:
        out = {static_cast<int>(Resource::Layer),
               (static_cast<std::int64_t>(ref.buffer) << 32) + ref.index};
        return true;
      default:  // None, Zero, Bias (read only), Stack (each lane has its own)
        return false;
    }
  }
  void read(const op::Ref& ref) {
    Touched t;
    if (touched(ref, t)) reads.insert(t);
  }
  void write(const op::Ref& ref) {
    Touched t;
    if (touched(ref, t)) writes.insert(t), reads.insert(t);
  }
  void add(const op::Op& op) {
    read(op.a);
    read(op.b);
    if (isGradientKind(op.kind)) {
      const std::int64_t floats = op.kind == Kind::WeightGradient
                                      ? static_cast<std::int64_t>(op.units) * op.inner
                                      : op.units;
      gradientRanges.emplace_back(op.weights, op.weights + floats);
    } else
      write(op.dst);
    if (op.kind == Kind::CrossEntropyOnSums || op.kind == Kind::CtcOnSums)
      reads.insert({static_cast<int>(Resource::LossGradient), op.layer});
  }
  void add(const std::vector<op::Op>& ops) {
    for (const op::Op& op : ops) add(op);
  }
  void add(const Footprint& other) {
    reads.insert(other.reads.begin(), other.reads.end());
    writes.insert(other.writes.begin(), other.writes.end());
    gradientRanges.insert(gradientRanges.end(), other.gradientRanges.begin(),
                          other.gradientRanges.end());
  }
};

bool meets(const std::set<Touched>& a, const std::set<Touched>& b) {
  for (const Touched& t : a)
    if (b.count(t)) return true;
  return false;
}

/// Whether running the two in either order could give other floats: one writes what the other
/// reads or writes.
bool conflicts(const Footprint& x, const Footprint& y) {
  for (const auto& [first, last] : x.gradientRanges)
    for (const auto& [otherFirst, otherLast] : y.gradientRanges)
      if (first < otherLast && otherFirst < last) return true;
  return meets(x.writes, y.reads) || meets(y.writes, x.reads);
}

Footprint forwardFootprint(const op::NodeProgram& node) {
  Footprint f;
  f.add(node.forwardAll);
  f.add(node.forwardStep);
  return f;
}

std::vector<std::vector<int>> forwardGroups(const op::Program& program) {
  std::vector<std::vector<int>> groups;
  Footprint group;
  for (std::size_t n = 0; n < program.nodes.size(); ++n) {
    if (!program.nodes[n].computes) continue;
    const Footprint node = forwardFootprint(program.nodes[n]);
    if (groups.empty() || conflicts(node, group)) {
      groups.emplace_back();
      group = Footprint{};
    }
    groups.back().push_back(static_cast<int>(n));
    group.add(node);
  }
  return groups;
}

std::vector<std::vector<int>> backwardGroups(const op::Program& program) {
  std::vector<std::vector<int>> groups;
  Footprint inners, externals;
  for (std::size_t n = 0; n < program.nodes.size(); ++n) {
    const op::NodeProgram& node = program.nodes[n];
    if (!node.computes) continue;
    Footprint step, gradients, external;
    step.add(node.recurrent ? node.backwardStep : node.backwardAll);
    gradients.add(node.gradients);
    external.add(node.backwardExternal);
    Footprint inner = step;
    inner.add(gradients);
    // In a group, the node's gradients run before its external (the program has the other
    // order) and its external after the other nodes' inner regions.
    const bool joins = !groups.empty() && !conflicts(gradients, external) &&
                       !conflicts(inner, inners) && !conflicts(inner, externals) &&
                       !conflicts(external, inners);
    if (!joins) {
      groups.emplace_back();
      inners = Footprint{};
      externals = Footprint{};
    }
    groups.back().push_back(static_cast<int>(n));
    inners.add(inner);
    externals.add(external);
  }
  return groups;
}

}  // namespace

int NodeGroups::widest() const {
  std::size_t most = 1;
  for (const auto* list : {&forward, &backward})
    for (const auto& group : *list) most = std::max(most, group.size());
  return static_cast<int>(most);
}

NodeGroups independentNodes(const op::Program& program) {
  return {forwardGroups(program), backwardGroups(program)};
}

int laneCount(const NodeGroups& groups, int threads) {
  return std::max(1, std::min(threads, groups.widest()));
}

}  // namespace rnnwb::grid
