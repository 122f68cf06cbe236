#pragma once
// What RTRL carries for one recurrent node R of a compiled plan (spec/snap-masks.md, "State and
// parameters of a recurrent node"): the state h, the parameters θ_R in their fixed order, and the
// units (layer, i) of R's layers, each parameter tied to the unit it acts on first.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/op_program.hpp"

namespace rnnwb::snap {

/// Thrown for a recurrent node RTRL cannot take; what() names every offending connection.
class RtrlRefusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One layer of the state: rows offset .. offset + size - 1 of h.
struct StateLayer {
  int layer = 0;  // index into Graph::layers
  int offset = 0;
  int size = 0;
};

/// A contiguous run of θ_R: the existing weights of one connection in row-major order (masked
/// entries skipped; a `diagonal` connection has `size` weights) or the bias of one layer.
struct ParameterBlock {
  enum class Kind { Weight, Bias };
  Kind kind = Kind::Weight;
  int index = 0;            // connection index for Weight, layer index for Bias
  std::int64_t offset = 0;  // position of its first parameter in θ_R
  std::int64_t count = 0;
};

/// Why RTRL cannot take recurrent node `node` (an index into plan.nodes()), naming each delayed
/// connection inside it with delay > 1 and each one leaving it with delay > 1; nothing if it can.
std::optional<std::string> rtrlRefusal(const CompiledPlan& plan, int node);

/// "recurrent node {a, b}": the node named by its layers, as messages show it.
std::string recurrentNodeName(const CompiledPlan& plan, int node);

/// Bytes the layout of recurrent node `node` and the SnAp patterns built on it take at most,
/// computed from the sizes alone (nothing is allocated); nullopt when 64 bits cannot count them.
std::optional<std::uint64_t> rtrlLayoutBytes(const CompiledPlan& plan, int node);

/// The layout of one recurrent node. Keeps a pointer to the plan, which must outlive it.
class RtrlNodeLayout {
 public:
  /// `node` indexes plan.nodes() and must be recurrent; throws RtrlRefusal when RTRL cannot take
  /// it and std::invalid_argument for a plain node.
  RtrlNodeLayout(const CompiledPlan& plan, int node);

  const CompiledPlan& plan() const { return *m_plan; }
  int node() const { return m_node; }
  /// Member layers in file order.
  const std::vector<int>& layers() const { return m_layers; }
  /// State layers in file order; h is their activations concatenated.
  const std::vector<StateLayer>& stateLayers() const { return m_state; }
  int stateSize() const { return m_stateSize; }
  /// Row of unit (layer, 0) in h, or -1 when the layer is not a state layer.
  int stateOffset(int layer) const;

  std::int64_t parameterCount() const { return m_parameterCount; }
  const std::vector<ParameterBlock>& parameterBlocks() const { return m_blocks; }
  /// The unit each parameter acts on first, in θ_R order (parameterCount() entries).
  const std::vector<std::int32_t>& parameterUnits() const { return m_parameterUnits; }

  /// Units of the member layers, layer by layer in file order.
  int unitCount() const { return m_unitCount; }
  /// Index of unit (layer, 0), or -1 when the layer is not in the node.
  int unitOffset(int layer) const;
  /// The mask of a `full` connection into the node, row-major [to.size x from.size], drawn by
  /// rnnwb::connectionMask (the generator `init` uses); all ones for a dense connection.
  const std::vector<std::uint8_t>& weightMask(int connection) const;
  /// True when the connection's source and destination are both in the node.
  bool isInternal(int connection) const;
  /// How the connection's term reads its source, from the op program (op_program.hpp): whether
  /// it has weights, connects every unit (a product) or unit to unit, and its sign.
  const op::TermCoefficient& term(int connection) const { return m_terms.at(connection); }

 private:
  void collectParameters();
  void requireMemoryForParameters() const;

  const CompiledPlan* m_plan;
  int m_node;
  std::vector<int> m_layers;
  std::vector<StateLayer> m_state;
  int m_stateSize = 0;
  std::map<int, int> m_unitOffsets;  // layer -> first unit
  int m_unitCount = 0;
  std::vector<ParameterBlock> m_blocks;
  std::int64_t m_parameterCount = 0;
  std::vector<std::int32_t> m_parameterUnits;
  std::map<int, std::vector<std::uint8_t>> m_masks;  // full connections into the node
  std::vector<op::TermCoefficient> m_terms;          // per connection of the graph
};

}  // namespace rnnwb::snap
