// The CPU engine as a binder of the op program (op_program.hpp): the program is lowered once
// (op_lowering.hpp) and rewritten by the passes (op_passes.hpp); every chunk, its buffer
// references are bound to this chunk's rows and parameters, and the regions run. Plain nodes and
// the external connections of recurrent nodes run over all rows of the chunk, split among the
// workers; recurrent nodes step frame by frame, each worker its own streams. The fused steps run
// each element-wise block stream by stream (fused_step.hpp); the unfused ones each op over all the
// worker's streams in turn, with the fusing passes off: both give the same floats.
#include <algorithm>
#include <stdexcept>

#include "cpu_engine.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/op_passes.hpp"

namespace rnnwb {

void CpuBackend::Engine::buildProgram(bool external, bool inputs) {
  m_programExternal = external;
  m_programInputGradients = inputs;
  op::LoweringOptions options;
  options.externalOutputGradients = external;
  options.inputGradients = inputs;
  m_program = op::lower(m_plan, *m_layout, options);
  op::readIdentityFactorsInPlace(m_program, m_plan);
  op::planFirstWriters(m_program, m_plan, *m_layout, m_programExternal);
  if (m_options.fusedSteps) {
    op::foldLastAdds(m_program, m_plan);
    op::skipIdentityFactorGradients(m_program, m_plan);
  }
  m_stackWidth = m_program.stackWidth;
  m_z.resize(m_program.factors.size());
  m_dz.resize(m_program.factors.size());
}

cpu::RowOperand CpuBackend::Engine::rowsOf(float* atRowZero, int width) const {
  const std::ptrdiff_t stride = width;
  return {atRowZero, stride * m_streams, stride};
}

cpu::RowOperand CpuBackend::Engine::bind(const op::Ref& ref) {
  const auto earlierRow = [&] { return -static_cast<std::ptrdiff_t>(ref.shift) * m_streams; };
  const auto units = [&] { return m_layers[ref.index].size; };
  switch (ref.buffer) {
    case op::Buffer::None:
      return {};
    case op::Buffer::Value:
      return rowsOf(y(ref.index, earlierRow()), units());
    case op::Buffer::ValueGrad:
      return rowsOf(dy(ref.index, earlierRow()), units());
    case op::Buffer::Sum:
      return rowsOf(s(ref.index, 0), units());
    case op::Buffer::SumGrad:
      return rowsOf(ds(ref.index, 0), units());
    case op::Buffer::Factor:
      return rowsOf(m_z[ref.index].data(), m_program.factors[ref.index].units);
    case op::Buffer::FactorGrad:
      return rowsOf(m_dz[ref.index].empty() ? nullptr : m_dz[ref.index].data(),
                    m_program.factors[ref.index].units);
    case op::Buffer::Stack:
      return {m_stack.data() + ref.index, 0, m_stackWidth};
    case op::Buffer::Bias:  // the same row for every frame and stream
      return {const_cast<float*>(m_params + m_layout->layerBias(ref.index)->offset), 0, 0};
    case op::Buffer::Zero:
      return {m_zeroRow.data(), 0, 0};
  }
  throw std::logic_error("op program: a buffer reference of no known kind");
}

std::vector<cpu::FusedStep> CpuBackend::Engine::bindRegion(const std::vector<op::Op>& ops) {
  std::vector<cpu::FusedStep> region;
  for (const op::Op& op : ops) {
    const float* weights = op.weights >= 0 ? m_params + op.weights : nullptr;
    if (op.kind == op::Kind::Product) {
      cpu::FusedStep step;
      step.isProduct = true;
      step.product = {op.transposeWeights, op.units, op.inner, bind(op.a),
                      bind(op.dst),        weights,  op.ldw,   op.beta};
      region.push_back(std::move(step));
      continue;
    }
    cpu::FusedOp bound;
    bound.kind = op.kind;
    bound.activation = op.activation;
    bound.units = op.units;
    bound.dst = bind(op.dst);
    bound.a = bind(op.a);
    bound.b = bind(op.b);
    bound.weights = weights;
    if (op.kind == op::Kind::CrossEntropyOnSums) {
      // A forward-only chunk may have no targets: its backward never runs.
      if (m_batch->targets.empty()) continue;
      bound.classes = m_batch->targets[op.output].i64().data();
      bound.firstPredictedRow =
          static_cast<std::ptrdiff_t>(m_batch->firstPredictedFrame) * m_streams;
      bound.streams = m_streams;
    }
    cpu::appendOp(region, bound);
  }
  return region;
}

void CpuBackend::Engine::bindProgram() {
  m_bound.assign(m_program.nodes.size(), {});
  for (std::size_t n = 0; n < m_program.nodes.size(); ++n) {
    const op::NodeProgram& node = m_program.nodes[n];
    BoundNode& bound = m_bound[n];
    bound.forwardAll = bindRegion(node.forwardAll);
    bound.forwardStep = bindRegion(node.forwardStep);
    bound.backwardAll = bindRegion(node.backwardAll);
    bound.backwardStep = bindRegion(node.backwardStep);
    bound.backwardExternal = bindRegion(node.backwardExternal);
    if (node.recurrent && m_options.fusedSteps && m_options.packedStepProducts) {
      makePackedProducts(n, false);
      makePackedProducts(n, true);
    }
  }
}

void CpuBackend::Engine::runOverRows(const std::vector<cpu::FusedStep>& region, Rows rows) {
  for (const cpu::FusedStep& step : region) {
    if (step.isProduct) {
      const cpu::FusedProduct& p = step.product;
      const int first = static_cast<int>(rows.first);
      gemm(false, p.transposeWeights, rows.count, p.n, p.k, p.a.at(0, first),
           static_cast<int>(p.a.streamStride), p.weights, p.ldw, p.beta, p.c.at(0, first),
           static_cast<int>(p.c.streamStride));
      continue;
    }
    for (const cpu::FusedOp& op : step.block)
      cpu::runOpRows(op, 0, static_cast<int>(rows.first), rows.count);
  }
}

void CpuBackend::Engine::forwardNode(std::size_t n) {
  const op::NodeProgram& node = m_program.nodes[n];
  if (!node.computes) return;  // loaded with the batch
  // The rows of a chunk are independent here: each worker computes its own, all frames at once.
  onRowParts([&](Rows rows) { runOverRows(m_bound[n].forwardAll, rows); });
  if (!node.recurrent) return;
  // Streams are independent inside a chunk: each worker steps its own through all frames.
  onStreamParts(
      [&](int worker, int first, int count) { runSteps(n, false, worker, first, count); });
}

void CpuBackend::Engine::backwardNode(std::size_t n) {
  const op::NodeProgram& node = m_program.nodes[n];
  if (!node.computes) return;
  if (node.recurrent)
    onStreamParts(
        [&](int worker, int first, int count) { runSteps(n, true, worker, first, count); });
  else
    onRowParts([&](Rows rows) { runOverRows(m_bound[n].backwardAll, rows); });
  backwardExternal(n);
}

void CpuBackend::Engine::backwardExternal(std::size_t n) {
  // A worker adds its rows of a connection into the source's dy rows `delay` frames earlier: two
  // connections from one source with different delays would have two workers add into the same
  // rows, so those connections take a pass each. Every dy entry gets its terms in program order,
  // whatever the worker count.
  const std::vector<op::Op>& ops = m_program.nodes[n].backwardExternal;
  bool sharedRows = false;
  for (std::size_t a = 0; a < ops.size(); ++a)
    for (std::size_t b = 0; b < a; ++b)
      sharedRows = sharedRows ||
                   (ops[a].dst.index == ops[b].dst.index && ops[a].dst.shift != ops[b].dst.shift);
  const std::vector<cpu::FusedStep>& region = m_bound[n].backwardExternal;
  if (!sharedRows) {
    onRowParts([&](Rows rows) { runOverRows(region, rows); });
    return;
  }
  // One external op per connection: each step of the region holds one (a product or an add).
  for (const cpu::FusedStep& step : region) {
    if (step.isProduct) {
      const std::vector<cpu::FusedStep> one{step};
      onRowParts([&](Rows rows) { runOverRows(one, rows); });
      continue;
    }
    for (const cpu::FusedOp& op : step.block) {
      std::vector<cpu::FusedStep> one;
      cpu::appendOp(one, op);
      onRowParts([&](Rows rows) { runOverRows(one, rows); });
    }
  }
}

void CpuBackend::Engine::runSteps(std::size_t node, bool backward, int worker, int first,
                                  int count) {
  const std::vector<cpu::FusedStep>& program =
      backward ? m_bound[node].backwardStep : m_bound[node].forwardStep;
  const std::vector<PackedProduct*> packed =
      m_options.fusedSteps ? packedProducts(node, backward, worker) : std::vector<PackedProduct*>{};
  for (int f = 0; f < m_frames; ++f) {
    const int t = backward ? m_frames - 1 - f : f;
    std::size_t index = 0;
    for (const cpu::FusedStep& step : program) {
      if (!step.isProduct) {
        if (m_options.fusedSteps)
          cpu::runFusedBlock(step, t, first, count);
        else
          for (const cpu::FusedOp& op : step.block) cpu::runOpRows(op, t, first, count);
        continue;
      }
      const cpu::FusedProduct& p = step.product;
      if (!packed.empty()) {
        PackedProduct& product = *packed[index++];
        timedProduct(2.0 * count * p.n * p.k,
                     [&] { product.multiply(p.a.at(t, first), p.c.at(t, first)); });
        continue;
      }
      gemm(false, p.transposeWeights, count, p.n, p.k, p.a.at(t, first),
           static_cast<int>(p.a.streamStride), p.weights, p.ldw, p.beta, p.c.at(t, first),
           static_cast<int>(p.c.streamStride));
    }
  }
}

}  // namespace rnnwb
