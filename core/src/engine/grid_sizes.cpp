// The sizes of the grid binder's buffers (grid_binder.hpp), shared by the binder, which
// allocates them, and by the memory estimate (grid_memory.hpp), which only counts them.
#include <algorithm>
#include <set>

#include "grid_binder.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/op_passes.hpp"

namespace rnnwb::grid {
namespace {

using op::Buffer;
using op::Kind;
using op::Route;

bool isLayerBuffer(Buffer b) {
  return b == Buffer::Value || b == Buffer::ValueGrad || b == Buffer::Sum || b == Buffer::SumGrad;
}

/// One operand of an op as GridBinder::runOp reads it: the reference, the floats per row, and
/// the scratch a gather of it goes to (a value's own slot, or scratch A or B).
struct OperandRead {
  const op::Ref* ref;
  int width;
  char scratch;  // 'a', 'b' or 'd' (the destination's, when it is written through a map)
};

/// runOp's operands, with the widths it reads them at.
std::vector<OperandRead> operandReads(const op::Op& op) {
  switch (op.kind) {
    case Kind::BiasGradient:
      return {{&op.a, op.units, 'a'}};
    case Kind::WeightGradient:
      return {{&op.a, op.units, 'a'}, {&op.b, op.inner, 'b'}};
    case Kind::DiagonalWeightGradient:
      return {{&op.a, op.units, 'a'}, {&op.b, op.units, 'b'}};
    case Kind::Product:
      return {{&op.dst, op.units, 'd'}, {&op.a, op.inner, 'a'}};
    case Kind::CrossEntropyOnSums:
    case Kind::CtcOnSums:
      return {{&op.dst, op.units, 'd'}};
    default:
      return {{&op.dst, op.units, 'd'}, {&op.a, op.units, 'a'}, {&op.b, op.units, 'b'}};
  }
}

using MapKey = std::tuple<int, int, int, int, int, int>;  // as GridBinder's

/// Adds one run of `ops` over `count` rows of node `node` to the scratch sizes.
void walkRun(const std::vector<op::Op>& ops, int node, std::size_t count, const GridRows& rows,
             const CompiledPlan& plan, ScratchFloats& sizes, std::set<MapKey>& maps) {
  if (count == 0) return;
  std::vector<op::Ref> gathered;  // this run's values, one slot each (GridWorkspace::gathered)
  for (const op::Op& op : ops)
    for (const OperandRead& read : operandReads(op)) {
      const op::Ref& ref = *read.ref;
      if (readsOwnRows(ref, node, rows)) continue;
      const MapKey key{node,   ref.index, ref.shift, ref.shiftY, static_cast<int>(ref.route),
                       ref.via};
      if (maps.insert(key).second)
        sizes.mapInts += rowMapSources(ref, rows.node(node), rows, plan) +
                         (ref.route == Route::RowSum ? rows.node(node).positions.size() + 1 : 0);
      const std::size_t floats = count * static_cast<std::size_t>(read.width);
      if (read.scratch == 'd') {
        sizes.dst = std::max(sizes.dst, floats);
      } else if (ref.buffer == Buffer::Value) {
        const auto known = std::find(gathered.begin(), gathered.end(), ref);
        if (known != gathered.end()) continue;
        gathered.push_back(ref);
        if (sizes.gathered.size() < gathered.size()) sizes.gathered.push_back(0);
        sizes.gathered[gathered.size() - 1] = std::max(sizes.gathered[gathered.size() - 1], floats);
      } else {
        std::size_t& slot = read.scratch == 'a' ? sizes.a : sizes.b;
        slot = std::max(slot, floats);
      }
    }
}

/// Per factor, whether an op of the program reads or writes its dz.
std::vector<bool> factorGradsUsed(const op::Program& program) {
  std::vector<bool> used(program.factors.size(), false);
  const auto mark = [&](const op::Ref& ref) {
    if (ref.buffer == Buffer::FactorGrad) used[static_cast<std::size_t>(ref.index)] = true;
  };
  for (const op::NodeProgram& node : program.nodes)
    for (const auto* ops : {&node.forwardAll, &node.forwardStep, &node.backwardAll,
                            &node.backwardStep, &node.backwardExternal, &node.gradients})
      for (const op::Op& op : *ops) {
        mark(op.dst);
        mark(op.a);
        mark(op.b);
      }
  return used;
}

}  // namespace

op::Program gridProgram(const CompiledPlan& plan, const ParameterLayout& layout,
                        const op::LoweringOptions& options) {
  op::Program program = op::lower(plan, layout, options);
  op::readIdentityFactorsInPlace(program, plan);
  op::skipIdentityFactorGradients(program, plan);
  return program;
}

bool readsOwnRows(const op::Ref& ref, int node, const GridRows& rows) {
  if (!isLayerBuffer(ref.buffer)) return true;
  return ref.shift == 0 && ref.shiftY == 0 && ref.route == Route::Direct &&
         rows.nodeOfLayer(ref.index) == node;
}

std::size_t rowMapSources(const op::Ref& ref, const NodeRows& node, const GridRows& rows,
                          const CompiledPlan& plan) {
  if (ref.route == Route::BlockWindow) {
    const auto& block = plan.graph().connections[ref.via].block;
    return node.positions.size() * static_cast<std::size_t>(block[0]) * block[1];
  }
  if (ref.route != Route::RowSum) return node.positions.size();
  std::size_t sources = 0;
  for (const Position& p : node.positions) sources += rows.extent(ref.index, p.example).height;
  return sources;
}

BufferFloats bufferFloats(const CompiledPlan& plan, const op::Program& program,
                          const GridRows& rows) {
  BufferFloats floats;
  const auto& layers = plan.graph().layers;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const std::size_t n = static_cast<std::size_t>(rows.rows(static_cast<int>(l))) * layers[l].size;
    const bool ownSum = !op::sumIsValue(layers[l]) && !layers[l].isInput();
    const bool lossGrad =
        layers[l].loss == LossKind::CrossEntropy || layers[l].loss == LossKind::Ctc;
    floats.layers.push_back({n, ownSum ? n : 0, lossGrad ? n : 0});
    floats.widest = std::max(floats.widest, layers[l].size);
  }
  const std::vector<bool> gradsUsed = factorGradsUsed(program);
  for (std::size_t f = 0; f < program.factors.size(); ++f) {
    const op::Factor& factor = program.factors[f];
    const std::size_t n =
        static_cast<std::size_t>(rows.rows(plan.toLayer(factor.connection))) * factor.units;
    floats.factors.push_back(factor.readsSource ? 0 : n);
    floats.factorGrads.push_back(gradsUsed[f] ? n : 0);
  }
  int widestRange = 0;
  for (std::size_t n = 0; n < plan.nodes().size(); ++n)
    if (plan.nodes()[n].recurrent)
      widestRange = std::max(widestRange, rows.node(static_cast<int>(n)).widestRange);
  floats.stack = static_cast<std::size_t>(widestRange) * program.stackWidth;
  return floats;
}

ScratchFloats scratchFloats(const CompiledPlan& plan, const op::Program& program,
                            const GridRows& rows) {
  ScratchFloats sizes;
  std::set<MapKey> maps;
  for (std::size_t n = 0; n < program.nodes.size(); ++n) {
    const op::NodeProgram& node = program.nodes[n];
    if (!node.computes) continue;
    const int index = static_cast<int>(n);
    const NodeRows& nodeRows = rows.node(index);
    const std::size_t all = static_cast<std::size_t>(nodeRows.rows());
    // A step region runs once per wavefront; the widest one sizes its scratch.
    const std::size_t widest = static_cast<std::size_t>(nodeRows.widestRange);
    walkRun(node.forwardAll, index, all, rows, plan, sizes, maps);
    if (node.recurrent) {
      walkRun(node.forwardStep, index, widest, rows, plan, sizes, maps);
      walkRun(node.backwardStep, index, widest, rows, plan, sizes, maps);
    } else {
      walkRun(node.backwardAll, index, all, rows, plan, sizes, maps);
    }
    walkRun(node.backwardExternal, index, all, rows, plan, sizes, maps);
    walkRun(node.gradients, index, all, rows, plan, sizes, maps);
  }
  return sizes;
}

}  // namespace rnnwb::grid
