#pragma once
// The builder behind buildChunkSchedule: the CPU engine's order of operations
// (core/src/engine/cpu_forward.cpp, cpu_backward.cpp), each emitted as a LaunchStep.
// launch_schedule.cpp holds the arena layout and the forward pass, launch_schedule_backward.cpp
// the backward pass. Private to gpu/.
#include <algorithm>

#include "launch_schedule.hpp"

namespace rnnwb::gpu::detail {

using Offset = std::int64_t;

struct Rows {
  Offset first = 0;
  int count = 0;
};

class Builder {
 public:
  Builder(const CompiledPlan& plan, const ParameterLayout& layout, const Program& program,
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
  void gemm(bool ta, bool tb, int m, int n, int k, Offset a, int lda, Offset b, int ldb, float beta,
            Offset c, int ldc);

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

}  // namespace rnnwb::gpu::detail
