// The chunk lowering: the backward pass, the schedule in reverse (schedule_builder.hpp).
#include <stdexcept>

#include "schedule_builder.hpp"

namespace rnnwb::gpu::detail {

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
    case ConnectionType::Complement:
    case ConnectionType::Block:  // refused before an engine is built (engine_support.hpp)
      throw std::logic_error("the engines compute no complement or block connection yet");
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

}  // namespace rnnwb::gpu::detail
