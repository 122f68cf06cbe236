#pragma once
// The builder behind buildChunkSchedule: a binder of the op program (rnnwb/core/engine/
// op_program.hpp), as the CPU engine is (core/src/engine/cpu_op_binder.cpp). Each op's buffer
// references become arena offsets with leading dimensions, and each op one LaunchStep of the
// kind that maps to its op kind: once over all rows of the chunk for an "All" region, once per
// frame for a "Step" region. No layer or connection rule is written here; the lowering has them.
// launch_schedule.cpp holds the arena layout and the binding of the regions,
// launch_schedule_backward.cpp what the binder adds itself: the losses, their mse gradient, the
// zeroing of gradients and the mask. Private to gpu/.
#include <algorithm>

#include "launch_schedule.hpp"

namespace rnnwb::gpu::detail {

using Offset = std::int64_t;

/// The rows an op works on: all of the chunk's (an "All" region) or one frame's (a "Step" one).
struct Rows {
  Offset first = 0;
  int count = 0;
  bool step = false;
};

/// A bound buffer reference: where its row `Rows::first` starts and the distance between rows (0:
/// one row for every row, a bias or the zero row).
struct Operand {
  Offset at = -1;
  int ld = 0;
};

class Builder {
 public:
  Builder(const CompiledPlan& plan, const ParameterLayout& layout, const op::Program& program,
          const ChunkShape& shape)
      : m_plan(plan),
        m_layout(layout),
        m_program(program),
        m_shape(shape),
        m_n(shape.streams),
        m_t(shape.frames) {}

  ChunkSchedule build();

 private:
  const Layer& layer(int l) const { return m_plan.graph().layers[l]; }
  int delayOf(int l) const { return m_plan.maxDelayFrom(l); }
  Offset allRows() const { return static_cast<Offset>(m_t) * m_n; }
  Offset firstPredictedRow() const {
    return static_cast<Offset>(m_shape.firstPredictedFrame) * m_n;
  }
  Offset padded(const std::vector<Offset>& base, int l, Offset row) const {
    return base[l] + (row + static_cast<Offset>(delayOf(l)) * m_n) * layer(l).size;
  }
  Offset y(int l, Offset row) const { return padded(m_off.y, l, row); }
  Offset dy(int l, Offset row) const { return padded(m_off.dy, l, row); }
  Offset s(int l, Offset row) const { return m_off.s[l] + row * layer(l).size; }

  void allocate();
  void emit(const LaunchStep& step) { m_out.steps.push_back(step); }
  void flat(StepKind kind, Offset dst, Offset src, Offset count);

  // launch_schedule.cpp: the regions of the op program, bound
  Operand resolve(const op::Ref& ref, Rows rows);
  void bindRegion(const std::vector<op::Op>& ops, Rows rows);
  void bindOp(const op::Op& op, Rows rows);
  void bindProduct(const op::Op& op, Rows rows);
  void bindWeightGradient(const op::Op& op, Rows rows);
  void bindRowOperation(StepKind kind, const op::Op& op, Rows rows);
  void bindCrossEntropy(const op::Op& op, Rows rows);
  void bindColumnSum(StepKind kind, const op::Op& op, Rows rows);
  void forwardNode(const op::NodeProgram& node);
  void backwardNode(const op::NodeProgram& node);

  // launch_schedule_backward.cpp: the binder's own steps
  void losses();
  void startBackward();
  void clearValueGradients();

  const CompiledPlan& m_plan;
  const ParameterLayout& m_layout;
  const op::Program& m_program;
  ChunkShape m_shape;
  int m_n, m_t;
  ArenaOffsets m_off;
  LaunchSchedule m_out;
  int m_zeroWidth = 0;          // floats in the zero row: the widest layer's
  bool m_readsZeroRow = false;  // an op reads the zero row: the schedule zeroes it first
};

}  // namespace rnnwb::gpu::detail
