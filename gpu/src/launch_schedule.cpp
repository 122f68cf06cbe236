// The chunk schedule as a binder of the op program: the arena layout, each op kind's step kind
// and the binding of every region (schedule_builder.hpp).
#include "launch_schedule.hpp"

#include <stdexcept>
#include <string>

#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/op_passes.hpp"
#include "schedule_builder.hpp"

namespace rnnwb::gpu {

op::Program deviceProgram(const CompiledPlan& plan, const ParameterLayout& layout,
                          const DeviceProgramOptions& options) {
  op::Program program = op::lower(plan, layout);
  if (options.firstWriters) op::planFirstWriters(program, plan, layout, false);
  if (options.fusedSteps) {
    op::foldLastAdds(program, plan);
    op::skipIdentityFactorGradients(program, plan);
  }
  return program;
}

namespace detail {
namespace {

/// The step kind of each op kind, one to one.
StepKind stepKindOf(op::Kind kind) {
  switch (kind) {
    case op::Kind::Fill:
      return StepKind::BroadcastRow;
    case op::Kind::Add:
      return StepKind::Add;
    case op::Kind::AddScaled:
      return StepKind::AddScaled;
    case op::Kind::Assign:
      return StepKind::Assign;
    case op::Kind::AssignScaled:
      return StepKind::AssignScaled;
    case op::Kind::Subtract:
      return StepKind::Subtract;
    case op::Kind::AddComplement:
      return StepKind::AddComplement;
    case op::Kind::AssignComplement:
      return StepKind::AssignComplement;
    case op::Kind::AssignNegated:
      return StepKind::AssignNegated;
    case op::Kind::Copy:
      return StepKind::Copy;
    case op::Kind::Mul:
      return StepKind::Mul;
    case op::Kind::MulInto:
      return StepKind::MulInto;
    case op::Kind::MulAdd:
      return StepKind::MulAdd;
    case op::Kind::MulAssign:
      return StepKind::MulAssign;
    case op::Kind::Activate:
      return StepKind::Activate;
    case op::Kind::AddActivate:
      return StepKind::AddActivate;
    case op::Kind::ActivateBackward:
      return StepKind::ActivateBackward;
    case op::Kind::CrossEntropyOnSums:
      return StepKind::CrossEntropyGrad;
    case op::Kind::Product:
      return StepKind::Gemm;
    case op::Kind::WeightGradient:
      return StepKind::WeightGradient;
    case op::Kind::DiagonalWeightGradient:
      return StepKind::ColumnDot;
    case op::Kind::BiasGradient:
      return StepKind::ColumnSum;
    case op::Kind::CtcOnSums:  // the CUDA backend refuses ctc (engine_support.hpp)
      break;
  }
  throw std::logic_error("op program: an op of no known kind");
}

}  // namespace

void Builder::allocate() {
  const auto& layers = m_plan.graph().layers;
  auto floats = [&](Offset count) {
    const Offset at = static_cast<Offset>(m_out.floatArena);
    m_out.floatArena += static_cast<std::size_t>(count);
    return at;
  };
  int widest = 0;
  for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
    const Offset rows = allRows() * layers[l].size;
    const Offset pad = (static_cast<Offset>(delayOf(l)) * m_n) * layers[l].size + rows;
    // An input's s and dy are never touched; a layer whose sum is its value keeps both in y, dy.
    const bool sum = !layers[l].isInput() && !op::sumIsValue(layers[l]);
    m_off.y.push_back(floats(pad));
    m_off.s.push_back(sum ? floats(rows) : -1);
    m_off.dy.push_back(m_shape.backward && !layers[l].isInput() ? floats(pad) : -1);
    m_off.ds.push_back(m_shape.backward && sum ? floats(rows) : -1);
    widest = std::max(widest, layers[l].size);
  }
  for (const op::Factor& factor : m_program.factors) {
    const Offset rows = allRows() * factor.units;
    m_off.z.push_back(factor.readsSource ? -1 : floats(rows));
    m_off.dz.push_back(m_shape.backward ? floats(rows) : -1);
  }
  m_off.stack = floats(static_cast<Offset>(m_n) * m_program.stackWidth);
  m_zeroWidth = widest;
  m_off.zeros = floats(widest);
  const Offset params = static_cast<Offset>(m_layout.size());
  m_off.params = floats(params);
  m_off.grads = m_shape.backward ? floats(params) : 0;
  m_off.mask = m_shape.backward && m_shape.masks ? floats(params) : 0;
  for (int l : m_plan.outputLayers()) {
    if (layers[l].loss == LossKind::CrossEntropy) {
      m_off.targets.push_back(static_cast<Offset>(m_out.intArena));
      m_out.intArena += static_cast<std::size_t>(allRows());
    } else {
      m_off.targets.push_back(floats(allRows() * layers[l].size));
    }
    m_off.loss.push_back(static_cast<Offset>(m_out.doubleArena));
    m_out.doubleArena += static_cast<std::size_t>(allRows());
  }
}

void Builder::flat(StepKind kind, Offset dst, Offset src, Offset count) {
  if (count <= 0) return;
  LaunchStep step;
  step.kind = kind;
  step.dst = dst;
  step.src = src;
  step.count = count;
  emit(step);
}

ChunkSchedule Builder::build() {
  allocate();
  for (const op::NodeProgram& node : m_program.nodes) forwardNode(node);
  if (m_shape.targets) losses();
  if (m_shape.backward) {
    startBackward();
    for (auto node = m_program.nodes.rbegin(); node != m_program.nodes.rend(); ++node) {
      backwardNode(*node);
      bindRegion(node->gradients, {0, static_cast<int>(allRows()), false});
    }
    if (m_shape.masks) flat(StepKind::Mask, m_off.grads, m_off.mask, m_layout.size());
  }
  if (m_readsZeroRow) {  // before anything reads it (the arena's contents are undefined)
    LaunchStep zero;
    zero.kind = StepKind::Zero;
    zero.dst = m_off.zeros;
    zero.count = m_zeroWidth;
    m_out.steps.insert(m_out.steps.begin(), zero);
  }
  return {m_shape, std::move(m_off), std::move(m_out)};
}

// ---- the op program's regions --------------------------------------------------------------

Operand Builder::resolve(const op::Ref& ref, Rows rows) {
  const auto require = [&](Offset at, const char* what) {
    if (at < 0)
      throw std::logic_error(std::string("launch schedule: an op reads the ") + what +
                             " of a layer or factor that has none in the arena (index " +
                             std::to_string(ref.index) + ")");
    return at;
  };
  const Offset row = rows.first - static_cast<Offset>(ref.shift) * m_n;
  switch (ref.buffer) {
    case op::Buffer::None:
      return {};
    case op::Buffer::Value:
      return {y(ref.index, row), layer(ref.index).size};
    case op::Buffer::ValueGrad:
      require(m_off.dy[ref.index], "dy");
      return {dy(ref.index, row), layer(ref.index).size};
    case op::Buffer::Sum:
      return {require(m_off.s[ref.index], "s") + row * layer(ref.index).size,
              layer(ref.index).size};
    case op::Buffer::SumGrad:
      return {require(m_off.ds[ref.index], "ds") + row * layer(ref.index).size,
              layer(ref.index).size};
    case op::Buffer::Factor: {
      const int units = m_program.factors[ref.index].units;
      return {require(m_off.z[ref.index], "z") + row * units, units};
    }
    case op::Buffer::FactorGrad: {
      const int units = m_program.factors[ref.index].units;
      return {require(m_off.dz[ref.index], "dz") + row * units, units};
    }
    case op::Buffer::Stack:  // one frame's workspace: [N, stack width]
      if (!rows.step)
        throw std::logic_error("launch schedule: a stacked product outside a frame step");
      return {m_off.stack + ref.index, m_program.stackWidth};
    case op::Buffer::Bias:
      return {m_off.params + static_cast<Offset>(m_layout.layerBias(ref.index)->offset), 0};
    case op::Buffer::Zero:
      m_readsZeroRow = true;
      return {m_off.zeros, 0};
  }
  throw std::logic_error("launch schedule: a buffer reference of no known kind");
}

void Builder::bindRegion(const std::vector<op::Op>& ops, Rows rows) {
  for (const op::Op& op : ops) bindOp(op, rows);
}

void Builder::bindOp(const op::Op& op, Rows rows) {
  if (rows.count == 0 || op.units == 0) return;
  const StepKind kind = stepKindOf(op.kind);
  switch (kind) {
    case StepKind::Gemm:
      return bindProduct(op, rows);
    case StepKind::WeightGradient:
      return bindWeightGradient(op, rows);
    case StepKind::CrossEntropyGrad:
      return bindCrossEntropy(op, rows);
    case StepKind::ColumnSum:
    case StepKind::ColumnDot:
      return bindColumnSum(kind, op, rows);
    default:
      return bindRowOperation(kind, op, rows);
  }
}

void Builder::bindProduct(const op::Op& op, Rows rows) {
  if (op.inner == 0) return;
  const Operand a = resolve(op.a, rows), c = resolve(op.dst, rows);
  LaunchStep step;
  step.kind = StepKind::Gemm;
  step.transB = op.transposeWeights;
  step.m = rows.count;
  step.n = op.units;
  step.k = op.inner;
  step.src = a.at;
  step.lda = a.ld;
  step.aux = m_off.params + op.weights;
  step.ldb = op.ldw;
  step.beta = op.beta;
  step.dst = c.at;
  step.ldc = c.ld;
  emit(step);
  ++m_out.gemmCount;
}

void Builder::bindWeightGradient(const op::Op& op, Rows rows) {
  if (op.inner == 0) return;
  // dW[units, inner] += a^T b over the rows.
  const Operand a = resolve(op.a, rows), b = resolve(op.b, rows);
  LaunchStep step;
  step.kind = StepKind::WeightGradient;
  step.transA = true;
  step.m = op.units;
  step.n = op.inner;
  step.k = rows.count;
  step.src = a.at;
  step.lda = a.ld;
  step.aux = b.at;
  step.ldb = b.ld;
  step.dst = m_off.grads + op.weights;
  step.ldc = op.inner;
  emit(step);
  ++m_out.gemmCount;
}

void Builder::bindRowOperation(StepKind kind, const op::Op& op, Rows rows) {
  const Operand dst = resolve(op.dst, rows), a = resolve(op.a, rows), b = resolve(op.b, rows);
  LaunchStep step;
  step.kind = kind;
  step.activation = op.activation;
  step.rows = rows.count;
  step.width = op.units;
  step.dst = dst.at;
  step.dstLd = dst.ld;
  step.src = a.at;
  step.srcLd = a.ld;
  step.aux = b.at;
  step.auxLd = b.ld;
  step.weights = op.weights >= 0 ? m_off.params + op.weights : -1;
  emit(step);
}

void Builder::bindCrossEntropy(const op::Op& op, Rows rows) {
  // A forward-only chunk may have no targets: its backward never runs.
  const Offset predicted = firstPredictedRow();
  if (!m_shape.targets || rows.first + rows.count <= predicted) return;
  const Operand ds = resolve(op.dst, rows), y = resolve(op.a, rows);
  LaunchStep step;
  step.kind = StepKind::CrossEntropyGrad;
  step.rows = rows.count;
  step.width = op.units;
  step.dst = ds.at;
  step.src = y.at;
  step.classes = m_off.targets[op.output] + rows.first;
  step.firstRow = static_cast<int>(std::max<Offset>(0, predicted - rows.first));
  emit(step);
}

void Builder::bindColumnSum(StepKind kind, const op::Op& op, Rows rows) {
  const Operand a = resolve(op.a, rows), b = resolve(op.b, rows);
  LaunchStep step;
  step.kind = kind;
  step.rows = rows.count;
  step.width = op.units;
  step.dst = m_off.grads + op.weights;
  step.src = a.at;
  step.aux = b.at;
  emit(step);
}

void Builder::forwardNode(const op::NodeProgram& node) {
  if (!node.computes) return;  // uploaded with the batch
  bindRegion(node.forwardAll, {0, static_cast<int>(allRows()), false});
  if (!node.recurrent) return;
  for (int t = 0; t < m_t; ++t)
    bindRegion(node.forwardStep, {static_cast<Offset>(t) * m_n, m_n, true});
}

void Builder::backwardNode(const op::NodeProgram& node) {
  if (!node.computes) return;
  if (node.recurrent) {
    for (int t = m_t - 1; t >= 0; --t)
      bindRegion(node.backwardStep, {static_cast<Offset>(t) * m_n, m_n, true});
  } else {
    bindRegion(node.backwardAll, {0, static_cast<int>(allRows()), false});
  }
  bindRegion(node.backwardExternal, {0, static_cast<int>(allRows()), false});
}

}  // namespace detail

ChunkSchedule buildChunkSchedule(const CompiledPlan& plan, const ParameterLayout& layout,
                                 const op::Program& program, const ChunkShape& shape) {
  return detail::Builder(plan, layout, program, shape).build();
}

}  // namespace rnnwb::gpu
