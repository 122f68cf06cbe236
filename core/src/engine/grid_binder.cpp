#include "grid_binder.hpp"

#include <algorithm>
#include <stdexcept>

#include "fused_step.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/products.hpp"

namespace rnnwb::grid {
namespace {

using op::Buffer;
using op::Kind;
using op::Route;

/// Kinds that only add into their destination, so that they may add through a row map.
bool addsOnly(const op::Op& op) {
  switch (op.kind) {
    case Kind::Add:
    case Kind::AddScaled:
    case Kind::Subtract:
    case Kind::AddComplement:
    case Kind::MulAdd:  // an identity factor's gradient into its delayed source's dy
      return true;
    case Kind::Product:
      return op.beta == 1.0f;
    default:
      return false;
  }
}

}  // namespace

GridBinder::GridBinder(const CompiledPlan& plan, const op::Program& program, const GridRows& rows,
                       const ParameterSet& parameters, GridWorkspace& workspace, int lanes)
    : m_plan(plan),
      m_program(program),
      m_rows(rows),
      m_parameters(parameters),
      m_layers(workspace.layers),
      m_factors(workspace.factors),
      m_factorGrads(workspace.factorGrads),
      m_zeros(workspace.zeros),
      m_workspace(workspace),
      m_maps(program.nodes.size()) {
  // Sizes only: every row of y, s, z and the loss gradients is written before it is read (a sum
  // starts as a Fill), and the gradients are cleared before a backward.
  const BufferFloats floats = bufferFloats(plan, program, rows);
  const auto& layers = plan.graph().layers;
  m_layers.resize(layers.size());
  for (std::size_t l = 0; l < layers.size(); ++l) {
    LayerBuffers& b = m_layers[l];
    b.size = layers[l].size;
    b.y.resize(floats.layers[l].values);
    b.dy.resize(floats.layers[l].values);
    b.s.resize(floats.layers[l].sums);
    b.ds.resize(floats.layers[l].sums);
    b.lossGrad.resize(floats.layers[l].lossGrad);
  }
  m_factors.resize(program.factors.size());
  m_factorGrads.resize(program.factors.size());
  for (std::size_t f = 0; f < program.factors.size(); ++f) {
    m_factors[f].resize(floats.factors[f]);
    m_factorGrads[f].resize(floats.factorGrads[f]);
  }
  workspace.lanes.resize(static_cast<std::size_t>(std::max(1, lanes)));
  for (LaneScratch& lane : workspace.lanes) lane.stack.resize(floats.stack);
  m_zeros.assign(static_cast<std::size_t>(floats.widest), 0.0f);
}

void GridBinder::clearGradients() {
  // Only dy takes adds from several ops. A layer's own ds is first written by its activation's
  // backward (ds = dy * f'(y), then the loss's terms add), and every factor's dz by the product
  // rule's Copy or Mul, before anything reads them, row by row.
  for (LayerBuffers& b : m_layers) std::fill(b.dy.begin(), b.dy.end(), 0.0f);
}

void GridBinder::run(int node, const std::vector<op::Op>& ops, int first, int count,
                     float* gradients, int lane) {
  if (count <= 0) return;
  LaneScratch& scratch = m_workspace.lanes.at(static_cast<std::size_t>(lane));
  scratch.gatheredCount = 0;
  for (const op::Op& op : ops) runOp(op, node, first, count, gradients, scratch);
}

// --- references ------------------------------------------------------------------------------

RowBuffer& GridBinder::buffer(const op::Ref& ref) {
  switch (ref.buffer) {
    case Buffer::Value:
      return m_layers[ref.index].y;
    case Buffer::ValueGrad:
      return m_layers[ref.index].dy;
    case Buffer::Sum:
      return m_layers[ref.index].s;
    case Buffer::SumGrad:
      return m_layers[ref.index].ds;
    case Buffer::Factor:
      return m_factors[ref.index];
    case Buffer::FactorGrad:
      return m_factorGrads[ref.index];
    default:
      throw std::logic_error("the grid engine has no rows for this op reference");
  }
}

int GridBinder::rowWidth(const op::Ref& ref) const {
  if (ref.buffer == Buffer::Factor || ref.buffer == Buffer::FactorGrad)
    return m_program.factors[ref.index].units;
  return m_layers[ref.index].size;
}

bool GridBinder::isDirect(const op::Ref& ref, int node) const {
  return readsOwnRows(ref, node, m_rows);
}

std::uint64_t GridBinder::mapBytes() const {
  std::uint64_t bytes = 0;
  for (const auto& maps : m_maps)
    for (const auto& [key, map] : maps)
      bytes += (map.sources.capacity() + map.offsets.capacity()) * sizeof(int);
  return bytes;
}

GridBinder::Operand GridBinder::ownRows(const op::Ref& ref, int first, LaneScratch& lane) {
  switch (ref.buffer) {
    case Buffer::None:
      return {};
    case Buffer::Zero:
      return {m_zeros.data(), 0};
    case Buffer::Bias: {
      const ParameterView* bias = m_parameters.layout().layerBias(ref.index);
      // Read only: the parameters are not written through an operand.
      return {const_cast<float*>(m_parameters.values().data() + bias->offset), 0};
    }
    case Buffer::Stack:  // the step's own rows of the workspace, from its first row
      return {lane.stack.data() + ref.index, m_program.stackWidth};
    default: {
      const int width = rowWidth(ref);
      return {buffer(ref).data() + static_cast<std::ptrdiff_t>(first) * width, width};
    }
  }
}

GridBinder::Operand GridBinder::read(const op::Ref& ref, int width, int node, int first, int count,
                                     RowBuffer& scratch, LaneScratch& lane) {
  if (isDirect(ref, node)) return ownRows(ref, first, lane);
  if (ref.buffer == Buffer::Value) {  // once per run (LaneScratch::gathered)
    auto& cache = lane.gathered;
    for (std::size_t k = 0; k < lane.gatheredCount; ++k)
      if (cache[k].first == ref) return {cache[k].second.data(), width};
    if (lane.gatheredCount == cache.size()) cache.emplace_back();
    auto& [key, rows] = cache[lane.gatheredCount++];
    key = ref;
    rows.resize(static_cast<std::size_t>(count) * width);
    gather(map(ref, node), ref, first, count, rows.data());
    return {rows.data(), width};
  }
  scratch.resize(static_cast<std::size_t>(count) * width);  // gather writes every float of it
  gather(map(ref, node), ref, first, count, scratch.data());
  return {scratch.data(), width};
}

const GridBinder::RowMap& GridBinder::map(const op::Ref& ref, int node) {
  auto& maps = m_maps[static_cast<std::size_t>(node)];
  const MapKey key{ref.index, ref.shift, ref.shiftY, static_cast<int>(ref.route), ref.via};
  auto found = maps.find(key);
  if (found != maps.end()) return found->second;
  RowMap map;
  const NodeRows& rows = m_rows.node(node);
  map.sources.reserve(rowMapSources(ref, rows, m_rows, m_plan));
  if (ref.route == Route::RowSum) {
    map.offsets.reserve(rows.positions.size() + 1);
    map.offsets.push_back(0);
    for (const Position& p : rows.positions) {
      const GridExtent extent = m_rows.extent(ref.index, p.example);
      for (int y = 0; y < extent.height; ++y)
        map.sources.push_back(m_rows.rowAt(ref.index, p.example, p.x, y));
      map.offsets.push_back(static_cast<int>(map.sources.size()));
    }
  } else if (ref.route == Route::BlockWindow) {
    const auto& block = m_plan.graph().connections[ref.via].block;
    const int bx = block[0], by = block[1];
    map.perRow = bx * by;
    for (const Position& p : rows.positions)
      for (int i = 0; i < by; ++i)
        for (int l = 0; l < bx; ++l)
          map.sources.push_back(m_rows.rowAt(ref.index, p.example, p.x * bx + l, p.y * by + i));
  } else {
    for (const Position& p : rows.positions)
      map.sources.push_back(m_rows.rowAt(ref.index, p.example, p.x - ref.shift, p.y - ref.shiftY));
  }
  return maps.emplace(key, std::move(map)).first->second;
}

void GridBinder::gather(const RowMap& map, const op::Ref& ref, int first, int count, float* out) {
  const float* source = buffer(ref).data();
  const int size = rowWidth(ref);
  for (int i = 0; i < count; ++i) {
    const int r = first + i;
    if (ref.route == Route::RowSum) {  // the sum over the rows of this column
      float* row = out + static_cast<std::ptrdiff_t>(i) * size;
      std::fill(row, row + size, 0.0f);
      for (int k = map.offsets[r]; k < map.offsets[r + 1]; ++k) {
        const float* from = source + static_cast<std::ptrdiff_t>(map.sources[k]) * size;
        for (int u = 0; u < size; ++u) row[u] += from[u];
      }
      continue;
    }
    // Direct (perRow 1) or a block's window, column c * K + k of the row (Conv2d's order).
    const int perRow = map.perRow;
    float* row = out + static_cast<std::ptrdiff_t>(i) * size * perRow;
    for (int k = 0; k < perRow; ++k) {
      const int at = map.sources[static_cast<std::size_t>(r) * perRow + k];
      if (at < 0) {  // outside the example: zeros
        for (int c = 0; c < size; ++c) row[c * perRow + k] = 0.0f;
        continue;
      }
      const float* from = source + static_cast<std::ptrdiff_t>(at) * size;
      for (int c = 0; c < size; ++c) row[c * perRow + k] = from[c];
    }
  }
}

void GridBinder::scatterAdd(const RowMap& map, const op::Ref& ref, int first, int count,
                            const float* in) {
  float* target = buffer(ref).data();
  const int size = rowWidth(ref);
  for (int i = 0; i < count; ++i) {
    const int r = first + i;
    if (ref.route == Route::RowSum) {  // into every row of this column
      const float* row = in + static_cast<std::ptrdiff_t>(i) * size;
      for (int k = map.offsets[r]; k < map.offsets[r + 1]; ++k) {
        float* to = target + static_cast<std::ptrdiff_t>(map.sources[k]) * size;
        for (int u = 0; u < size; ++u) to[u] += row[u];
      }
      continue;
    }
    const int perRow = map.perRow;
    const float* row = in + static_cast<std::ptrdiff_t>(i) * size * perRow;
    for (int k = 0; k < perRow; ++k) {
      const int at = map.sources[static_cast<std::size_t>(r) * perRow + k];
      if (at < 0) continue;  // outside the example: no row takes it
      float* to = target + static_cast<std::ptrdiff_t>(at) * size;
      for (int c = 0; c < size; ++c) to[c] += row[c * perRow + k];
    }
  }
}

// --- ops -------------------------------------------------------------------------------------

void GridBinder::runOp(const op::Op& op, int node, int first, int count, float* gradients,
                       LaneScratch& lane) {
  const float* parameters = m_parameters.values().data();
  switch (op.kind) {
    case Kind::WeightGradient:
    case Kind::DiagonalWeightGradient:
    case Kind::BiasGradient: {
      if (!gradients) return;
      const Operand a = read(op.a, op.units, node, first, count, lane.scratchA, lane);
      float* grad = gradients + op.weights;
      if (op.kind == Kind::BiasGradient) {
        for (int i = 0; i < count; ++i)
          for (int u = 0; u < op.units; ++u) grad[u] += a.base[i * a.ld + u];
        return;
      }
      const int bWidth = op.kind == Kind::WeightGradient ? op.inner : op.units;
      const Operand b = read(op.b, bWidth, node, first, count, lane.scratchB, lane);
      if (op.kind == Kind::WeightGradient) {  // dW[units, inner] += a^T b
        sgemm(true, false, op.units, op.inner, count, 1.0f, a.base, static_cast<int>(a.ld), b.base,
              static_cast<int>(b.ld), 1.0f, grad, op.inner);
        return;
      }
      for (int i = 0; i < count; ++i)
        for (int u = 0; u < op.units; ++u) grad[u] += a.base[i * a.ld + u] * b.base[i * b.ld + u];
      return;
    }
    default:
      break;
  }
  const bool mapped = !isDirect(op.dst, node);
  if (mapped && !addsOnly(op))
    throw std::logic_error("the grid engine cannot write this op through a row map");
  Operand dst;
  if (mapped) {
    lane.scratchDst.resize(static_cast<std::size_t>(count) * op.units);
    std::fill(lane.scratchDst.begin(), lane.scratchDst.end(), 0.0f);  // the op adds into it
    dst = {lane.scratchDst.data(), op.units};
  } else {
    dst = ownRows(op.dst, first, lane);
  }
  if (op.kind == Kind::Product) {
    const Operand a = read(op.a, op.inner, node, first, count, lane.scratchA, lane);
    sgemm(false, op.transposeWeights, count, op.units, op.inner, 1.0f, a.base,
          static_cast<int>(a.ld), parameters + op.weights, op.ldw, op.beta, dst.base,
          static_cast<int>(dst.ld));
  } else if (op.kind == Kind::CrossEntropyOnSums || op.kind == Kind::CtcOnSums) {
    // The loss's gradient with respect to the sums, computed for whole examples after the
    // forward (grid_losses.hpp), added row by row.
    const LayerBuffers& out = m_layers[op.layer];
    op::Op add = op;
    add.kind = Kind::Add;
    runElementwise(
        add, dst,
        {const_cast<float*>(out.lossGrad.data()) + static_cast<std::ptrdiff_t>(first) * out.size,
         out.size},
        {}, count);
  } else {
    const Operand a = read(op.a, op.units, node, first, count, lane.scratchA, lane);
    const Operand b = read(op.b, op.units, node, first, count, lane.scratchB, lane);
    runElementwise(op, dst, a, b, count);
  }
  if (mapped) scatterAdd(map(op.dst, node), op.dst, first, count, lane.scratchDst.data());
}

void GridBinder::runElementwise(const op::Op& op, Operand dst, Operand a, Operand b, int count) {
  cpu::FusedOp fused;
  fused.kind = op.kind;
  fused.activation = op.activation;
  fused.units = op.units;
  fused.dst = {dst.base, 0, dst.ld};
  fused.a = {a.base, 0, a.ld};
  fused.b = {b.base, 0, b.ld};
  if (op.weights >= 0) fused.weights = m_parameters.values().data() + op.weights;
  cpu::runOpRows(fused, 0, 0, count);
}

}  // namespace rnnwb::grid
