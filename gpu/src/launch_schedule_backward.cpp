// What the schedule binder adds to the op program itself, as the CPU engine does
// (core/src/engine/cpu_backward.cpp, cpu_engine.cpp): the losses, the zeroed gradients, the dy rows
// that no first writer overwrites, and the mse outputs' dL/dy (schedule_builder.hpp).
#include "schedule_builder.hpp"

namespace rnnwb::gpu::detail {

void Builder::losses() {
  const auto& outputs = m_plan.outputLayers();
  const Offset first = firstPredictedRow();
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

void Builder::startBackward() {
  flat(StepKind::Zero, m_off.grads, 0, static_cast<Offset>(m_layout.size()));
  clearValueGradients();
  // mse: dL/dy = y - target on the predicted frames; cross_entropy's goes to ds in the program.
  const auto& outputs = m_plan.outputLayers();
  const Offset first = firstPredictedRow();
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

void Builder::clearValueGradients() {
  // The first-writer pass says, per layer, which dy frames no writer overwrites (-1: all, k: the
  // carried ones and the last k); without it every writer adds, and all of dy is zeroed. Carried
  // rows are only written (delayed writers add into them), cleared so that they hold no stale
  // values.
  const std::vector<int>& clearFrames = m_program.gradientClearFrames;
  for (int l = 0; l < static_cast<int>(m_plan.graph().layers.size()); ++l) {
    if (layer(l).isInput() || layer(l).size == 0) continue;
    const Offset size = layer(l).size;
    const Offset carried = static_cast<Offset>(delayOf(l)) * m_n;
    const Offset all = carried + allRows();
    const int frames = clearFrames.empty() ? -1 : clearFrames[l];
    if (frames < 0) {
      flat(StepKind::Zero, m_off.dy[l], 0, all * size);
      continue;
    }
    const Offset last = std::min(allRows(), static_cast<Offset>(frames) * m_n);
    flat(StepKind::Zero, m_off.dy[l], 0, carried * size);
    flat(StepKind::Zero, m_off.dy[l] + (all - last) * size, 0, last * size);
  }
}

}  // namespace rnnwb::gpu::detail
