// The chunk lowering step by step: the same order of operations as the CPU engine
// (core/src/engine/cpu_forward.cpp, cpu_backward.cpp), each emitted as a LaunchStep.
#include "launch_schedule.hpp"

#include <algorithm>

namespace rnnwb::gpu {
namespace {

using Offset = std::int64_t;

struct Rows {
  Offset first = 0;
  int count = 0;
};

class Builder {
 public:
  Builder(const CompiledPlan& plan, const ParameterLayout& layout, const Program& program,
          const ChunkShape& shape)
      : m_plan(plan), m_layout(layout), m_program(program), m_shape(shape),
        m_n(shape.streams), m_t(shape.frames) {}

  ChunkSchedule build();

 private:
  const Layer& layer(int l) const { return m_plan.graph().layers[l]; }
  int delayOf(int l) const { return m_plan.maxDelayFrom(l); }
  Offset allRows() const { return static_cast<Offset>(m_t) * m_n; }
  Rows frames(int t0, int t1) const { return {static_cast<Offset>(t0) * m_n, (t1 - t0) * m_n}; }
  Offset earlier(Offset row, int delay) const { return row - static_cast<Offset>(delay) * m_n; }
  Offset padded(const std::vector<Offset>& base, int l, Offset row) const {
    return base[l] + (row + static_cast<Offset>(delayOf(l)) * m_n) * layer(l).size;
  }
  Offset y(int l, Offset row) const { return padded(m_off.y, l, row); }
  Offset dy(int l, Offset row) const { return padded(m_off.dy, l, row); }
  Offset s(int l, Offset row) const { return m_off.s[l] + row * layer(l).size; }
  Offset ds(int l, Offset row) const { return m_off.ds[l] + row * layer(l).size; }
  Offset dest(const ConnectionOp& op, Offset row) const {
    return op.zBuffer < 0 ? s(op.to, row) : m_off.z[op.zBuffer] + row * op.rows;
  }
  Offset destGrad(const ConnectionOp& op, Offset row) const {
    return op.zBuffer < 0 ? ds(op.to, row) : m_off.dz[op.zBuffer] + row * op.rows;
  }
  Offset weights(std::size_t offset) const { return m_off.params + static_cast<Offset>(offset); }
  int outputIndex(int l) const {
    const auto& outputs = m_plan.outputLayers();
    return static_cast<int>(std::find(outputs.begin(), outputs.end(), l) - outputs.begin());
  }

  void allocate();
  void emit(LaunchStep step) { m_out.steps.push_back(step); }
  void flat(StepKind kind, Offset dst, Offset src, Offset count);
  void gemm(bool ta, bool tb, int m, int n, int k, Offset a, int lda, Offset b, int ldb,
            float beta, Offset c, int ldc);

  void forwardNode(const NodeOp& node);
  void initDestinations(int l);
  void forwardConnection(const ConnectionOp& op, Rows rows);
  void forwardGroup(const StackedGroup& group, Rows rows);
  void finishLayer(int l, Rows rows);
  void losses();

  void startBackward();
  void backwardNode(const NodeOp& node);
  void finishLayerBackward(int l, Rows rows);
  void backwardConnection(const ConnectionOp& op, Rows rows);
  void backwardGroup(const StackedGroup& group, Rows rows);
  void parameterGradients(const NodeOp& node);

  const CompiledPlan& m_plan;
  const ParameterLayout& m_layout;
  const Program& m_program;
  ChunkShape m_shape;
  int m_n, m_t;
  ArenaOffsets m_off;
  LaunchSchedule m_out;
};

void Builder::allocate() {
  const auto& layers = m_plan.graph().layers;
  auto floats = [&](Offset count) {
    const Offset at = static_cast<Offset>(m_out.floatArena);
    m_out.floatArena += static_cast<std::size_t>(count);
    return at;
  };
  for (int l = 0; l < static_cast<int>(layers.size()); ++l) {
    const Offset rows = allRows() * layers[l].size;
    const Offset pad = (static_cast<Offset>(delayOf(l)) * m_n) * layers[l].size + rows;
    m_off.y.push_back(floats(pad));
    m_off.s.push_back(floats(rows));
    m_off.dy.push_back(m_shape.backward ? floats(pad) : 0);
    m_off.ds.push_back(m_shape.backward ? floats(rows) : 0);
  }
  m_off.z.resize(m_program.zBufferCount);
  m_off.dz.resize(m_program.zBufferCount);
  for (const ConnectionOp& op : m_program.connections) {
    if (op.zBuffer < 0) continue;
    m_off.z[op.zBuffer] = floats(allRows() * op.rows);
    if (m_shape.backward) m_off.dz[op.zBuffer] = floats(allRows() * op.rows);
  }
  m_off.stack = floats(static_cast<Offset>(m_n) * m_program.widestGroupRows);
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

void Builder::gemm(bool ta, bool tb, int m, int n, int k, Offset a, int lda, Offset b, int ldb,
                   float beta, Offset c, int ldc) {
  if (m == 0 || n == 0 || k == 0) return;
  LaunchStep step;
  step.kind = StepKind::Gemm;
  step.transA = ta;
  step.transB = tb;
  step.m = m;
  step.n = n;
  step.k = k;
  step.src = a;
  step.lda = lda;
  step.aux = b;
  step.ldb = ldb;
  step.beta = beta;
  step.dst = c;
  step.ldc = ldc;
  emit(step);
  ++m_out.gemmCount;
}

ChunkSchedule Builder::build() {
  allocate();
  for (const NodeOp& node : m_program.nodes) forwardNode(node);
  if (m_shape.targets) losses();
  if (m_shape.backward) {
    startBackward();
    for (auto node = m_program.nodes.rbegin(); node != m_program.nodes.rend(); ++node) {
      backwardNode(*node);
      parameterGradients(*node);
    }
    if (m_shape.masks) flat(StepKind::Mask, m_off.grads, m_off.mask, m_layout.size());
  }
  return {m_shape, std::move(m_off), std::move(m_out)};
}

// ---- forward -------------------------------------------------------------------------------

void Builder::forwardNode(const NodeOp& node) {
  if (layer(node.layers.front()).isInput()) return;  // uploaded with the batch
  for (int l : node.layers) initDestinations(l);
  for (int c : node.external) forwardConnection(m_program.connections[c], frames(0, m_t));
  if (!node.recurrent) {
    finishLayer(node.layers.front(), frames(0, m_t));
    return;
  }
  for (int t = 0; t < m_t; ++t) {
    const Rows rows = frames(t, t + 1);
    for (const StackedGroup& group : node.delayedGroups) forwardGroup(group, rows);
    for (int c : node.delayedOther) forwardConnection(m_program.connections[c], rows);
    for (std::size_t p = 0; p < node.layers.size(); ++p) {
      finishLayer(node.layers[p], rows);
      for (const StackedGroup& group : node.zeroGroups[p]) forwardGroup(group, rows);
      for (int c : node.zeroOther[p]) forwardConnection(m_program.connections[c], rows);
    }
  }
}

void Builder::initDestinations(int l) {
  if (layer(l).kind == LayerKind::Multiplicative) {
    for (int c : m_plan.anterior(l)) {
      const ConnectionOp& op = m_program.connections[c];
      flat(StepKind::Zero, dest(op, 0), 0, allRows() * op.rows);
    }
    return;
  }
  const ParameterView* bias = m_layout.layerBias(l);
  if (!bias) {
    flat(StepKind::Zero, s(l, 0), 0, allRows() * layer(l).size);
    return;
  }
  LaunchStep step;
  step.kind = StepKind::BroadcastRow;
  step.dst = s(l, 0);
  step.src = weights(bias->offset);
  step.rows = static_cast<int>(allRows());
  step.width = layer(l).size;
  emit(step);
}

void Builder::forwardConnection(const ConnectionOp& op, Rows rows) {
  const Offset source = y(op.from, earlier(rows.first, op.delay));
  const Offset target = dest(op, rows.first);
  switch (op.type) {
    case ConnectionType::Full:
      gemm(false, true, rows.count, op.rows, op.cols, source, op.cols, weights(op.weightOffset),
           op.cols, 1.0f, target, op.rows);
      break;
    case ConnectionType::Diagonal: {
      LaunchStep step;
      step.kind = StepKind::AddProduct;
      step.dst = target;
      step.src = source;
      step.aux = weights(op.weightOffset);
      step.rows = rows.count;
      step.width = op.rows;
      emit(step);
      break;
    }
    case ConnectionType::Identity:
      flat(StepKind::Add, target, source, static_cast<Offset>(rows.count) * op.rows);
      break;
  }
}

void Builder::forwardGroup(const StackedGroup& group, Rows rows) {
  if (group.connections.size() == 1) {
    forwardConnection(m_program.connections[group.connections.front()], rows);
    return;
  }
  // One product for every connection of the group, then each adds its columns.
  gemm(false, true, rows.count, group.rows, group.cols,
       y(group.from, earlier(rows.first, group.delay)), group.cols, weights(group.weightOffset),
       group.cols, 0.0f, m_off.stack, group.rows);
  int column = 0;
  for (int c : group.connections) {
    const ConnectionOp& op = m_program.connections[c];
    LaunchStep step;
    step.kind = StepKind::AddColumns;
    step.dst = dest(op, rows.first);
    step.src = m_off.stack + column;
    step.srcLd = group.rows;
    step.rows = rows.count;
    step.width = op.rows;
    emit(step);
    column += op.rows;
  }
}

void Builder::finishLayer(int l, Rows rows) {
  const Offset count = static_cast<Offset>(rows.count) * layer(l).size;
  if (layer(l).kind == LayerKind::Multiplicative) {
    bool first = true;
    for (int c : m_plan.anterior(l)) {
      flat(first ? StepKind::Copy : StepKind::Multiply, s(l, rows.first),
           dest(m_program.connections[c], rows.first), count);
      first = false;
    }
  }
  LaunchStep step;
  step.kind = StepKind::Activate;
  step.activation = layer(l).activation;
  step.dst = y(l, rows.first);
  step.src = s(l, rows.first);
  step.rows = rows.count;
  step.width = layer(l).size;
  emit(step);
}

void Builder::losses() {
  const auto& outputs = m_plan.outputLayers();
  const Offset first = static_cast<Offset>(m_shape.firstPredictedFrame) * m_n;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const int l = outputs[o];
    LaunchStep step;
    step.rows = static_cast<int>(allRows() - first);
    if (step.rows == 0) continue;
    step.width = layer(l).size;
    step.lossRow = m_off.loss[o] + first;
    if (layer(l).loss == LossKind::CrossEntropy) {
      step.kind = StepKind::CrossEntropyLoss;
      step.src = s(l, first);
      step.classes = m_off.targets[o] + first;
    } else {
      step.kind = StepKind::MseLoss;
      step.src = y(l, first);
      step.aux = m_off.targets[o] + first * layer(l).size;
    }
    emit(step);
  }
}

// ---- backward ------------------------------------------------------------------------------

void Builder::startBackward() {
  flat(StepKind::Zero, m_off.grads, 0, static_cast<Offset>(m_layout.size()));
  const auto& layers = m_plan.graph().layers;
  for (int l = 0; l < static_cast<int>(layers.size()); ++l)
    flat(StepKind::Zero, m_off.dy[l], 0,
         (static_cast<Offset>(delayOf(l)) * m_n + allRows()) * layers[l].size);
  // mse: dL/dy = y - target on the predicted frames; cross_entropy goes straight to ds.
  const auto& outputs = m_plan.outputLayers();
  const Offset first = static_cast<Offset>(m_shape.firstPredictedFrame) * m_n;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const int l = outputs[o];
    if (layer(l).loss != LossKind::Mse) continue;
    LaunchStep step;
    step.kind = StepKind::MseGrad;
    step.dst = dy(l, first);
    step.src = y(l, first);
    step.aux = m_off.targets[o] + first * layer(l).size;
    step.count = (allRows() - first) * layer(l).size;
    if (step.count > 0) emit(step);
  }
}

void Builder::backwardNode(const NodeOp& node) {
  if (layer(node.layers.front()).isInput()) return;
  if (node.recurrent) {
    for (int t = m_t - 1; t >= 0; --t) {
      const Rows rows = frames(t, t + 1);
      for (std::size_t p = node.layers.size(); p-- > 0;) {
        for (const StackedGroup& group : node.zeroGroups[p]) backwardGroup(group, rows);
        for (int c : node.zeroOther[p]) backwardConnection(m_program.connections[c], rows);
        finishLayerBackward(node.layers[p], rows);
      }
      for (const StackedGroup& group : node.delayedGroups) backwardGroup(group, rows);
      for (int c : node.delayedOther) backwardConnection(m_program.connections[c], rows);
    }
  } else {
    finishLayerBackward(node.layers.front(), frames(0, m_t));
  }
  for (int c : node.external) backwardConnection(m_program.connections[c], frames(0, m_t));
}

void Builder::finishLayerBackward(int l, Rows rows) {
  const int size = layer(l).size;
  const Offset count = static_cast<Offset>(rows.count) * size;
  LaunchStep step;
  step.kind = StepKind::ActivateBackward;
  step.activation = layer(l).activation;
  step.dst = ds(l, rows.first);
  step.src = y(l, rows.first);
  step.aux = dy(l, rows.first);
  step.rows = rows.count;
  step.width = size;
  emit(step);
  const Offset firstPredicted = static_cast<Offset>(m_shape.firstPredictedFrame) * m_n;
  if (layer(l).loss == LossKind::CrossEntropy && rows.first + rows.count > firstPredicted) {
    step.kind = StepKind::CrossEntropyGrad;
    step.classes = m_off.targets[outputIndex(l)] + rows.first;
    step.firstRow = static_cast<int>(std::max<Offset>(0, firstPredicted - rows.first));
    emit(step);
  }
  if (layer(l).kind != LayerKind::Multiplicative) return;
  // dz_m = ds * the product of the other factors (no division: factors may be 0).
  const auto& anterior = m_plan.anterior(l);
  for (int c : anterior) {
    const Offset gradZ = destGrad(m_program.connections[c], rows.first);
    flat(StepKind::Copy, gradZ, ds(l, rows.first), count);
    for (int other : anterior)
      if (other != c)
        flat(StepKind::Multiply, gradZ, dest(m_program.connections[other], rows.first), count);
  }
}

void Builder::backwardConnection(const ConnectionOp& op, Rows rows) {
  if (layer(op.from).isInput()) return;  // nothing upstream of an input needs its gradient
  const Offset grad = destGrad(op, rows.first);
  const Offset sourceGrad = dy(op.from, earlier(rows.first, op.delay));
  switch (op.type) {
    case ConnectionType::Full:
      gemm(false, false, rows.count, op.cols, op.rows, grad, op.rows, weights(op.weightOffset),
           op.cols, 1.0f, sourceGrad, op.cols);
      break;
    case ConnectionType::Diagonal: {
      LaunchStep step;
      step.kind = StepKind::AddProduct;
      step.dst = sourceGrad;
      step.src = grad;
      step.aux = weights(op.weightOffset);
      step.rows = rows.count;
      step.width = op.rows;
      emit(step);
      break;
    }
    case ConnectionType::Identity:
      flat(StepKind::Add, sourceGrad, grad, static_cast<Offset>(rows.count) * op.rows);
      break;
  }
}

void Builder::backwardGroup(const StackedGroup& group, Rows rows) {
  if (group.connections.size() == 1) {
    backwardConnection(m_program.connections[group.connections.front()], rows);
    return;
  }
  if (layer(group.from).isInput()) return;
  int column = 0;
  for (int c : group.connections) {
    const ConnectionOp& op = m_program.connections[c];
    LaunchStep step;
    step.kind = StepKind::CopyColumns;
    step.dst = m_off.stack + column;
    step.dstLd = group.rows;
    step.src = destGrad(op, rows.first);
    step.rows = rows.count;
    step.width = op.rows;
    emit(step);
    column += op.rows;
  }
  gemm(false, false, rows.count, group.cols, group.rows, m_off.stack, group.rows,
       weights(group.weightOffset), group.cols, 1.0f,
       dy(group.from, earlier(rows.first, group.delay)), group.cols);
}

void Builder::parameterGradients(const NodeOp& node) {
  if (layer(node.layers.front()).isInput()) return;
  const int rows = static_cast<int>(allRows());
  for (int l : node.layers) {
    if (const ParameterView* bias = m_layout.layerBias(l)) {
      LaunchStep step;
      step.kind = StepKind::ColumnSum;
      step.dst = m_off.grads + static_cast<Offset>(bias->offset);
      step.src = ds(l, 0);
      step.rows = rows;
      step.width = layer(l).size;
      emit(step);
    }
    for (int c : m_plan.anterior(l)) {
      const ConnectionOp& op = m_program.connections[c];
      const Offset grad = destGrad(op, 0);
      const Offset source = y(op.from, earlier(0, op.delay));
      const Offset out = m_off.grads + static_cast<Offset>(op.weightOffset);
      if (op.type == ConnectionType::Full) {
        gemm(true, false, op.rows, op.cols, rows, grad, op.rows, source, op.cols, 1.0f, out,
             op.cols);
      } else if (op.type == ConnectionType::Diagonal) {
        LaunchStep step;
        step.kind = StepKind::ColumnDot;
        step.dst = out;
        step.src = grad;
        step.aux = source;
        step.rows = rows;
        step.width = op.rows;
        emit(step);
      }
    }
  }
}

}  // namespace

ChunkSchedule buildChunkSchedule(const CompiledPlan& plan, const ParameterLayout& layout,
                                 const Program& program, const ChunkShape& shape) {
  return Builder(plan, layout, program, shape).build();
}

}  // namespace rnnwb::gpu
