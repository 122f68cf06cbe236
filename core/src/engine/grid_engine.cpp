#include "rnnwb/core/engine/grid_engine.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "grid_binder.hpp"
#include "grid_lanes.hpp"
#include "grid_losses.hpp"
#include "grid_memory_parts.hpp"
#include "grid_rows.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/engine/products.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "worker_pool.hpp"

namespace rnnwb {

double GridForward::loss() const {
  return std::accumulate(exampleLosses.begin(), exampleLosses.end(), 0.0);
}

struct GridEngine::Impl {
  const CompiledPlan& plan;
  GridEngineOptions options;
  ParameterLayout layout;
  op::Program program;
  // The programs of backwardFromOutputs (without, with input gradients), lowered on first use.
  mutable std::unique_ptr<op::Program> external[2];
  mutable grid::GridWorkspace workspace;  // reused by every call (grid_binder.hpp)
  mutable GridMemory lastMemory;
  // The nodes that may run at once, per program (this one and the external ones), and the
  // workers that run them: made when a call first has more than one lane.
  mutable std::map<const op::Program*, grid::NodeGroups> groupsOf;
  mutable std::unique_ptr<WorkerPool> pool;

  Impl(const CompiledPlan& p, GridEngineOptions o)
      : plan(p), options(std::move(o)), layout(p), program(grid::gridProgram(p, layout)) {}

  const op::Program& externalProgram(bool inputGradients) const;
  const grid::NodeGroups& groups(const op::Program& ops) const;
  /// The lanes a call on `ops` runs on now; the pool has that many workers when it is > 1.
  int lanes(const op::Program& ops) const;
  /// Runs task(lane) for each lane of the pool, each with single-threaded products.
  void onLanes(const std::function<void(int)>& task) const;
  /// Loads the inputs and runs every node forward, in schedule order (a group's nodes at once).
  void forward(const op::Program& ops, grid::GridBinder& binder, const grid::GridRows& rows,
               const ExampleBatch& batch, int lanes) const;
  void forwardNode(const op::Program& ops, grid::GridBinder& binder, const grid::GridRows& rows,
                   int node, int lane) const;
  /// Runs every node backward, in reverse schedule order, parameter gradients into `gradients`.
  void backward(const op::Program& ops, grid::GridBinder& binder, const grid::GridRows& rows,
                float* gradients, int lanes) const;
  /// A node's backwardStep over its wavefronts from the last (or its backwardAll).
  void backwardSteps(const op::Program& ops, grid::GridBinder& binder, const grid::GridRows& rows,
                     int node, float* gradients, int lane) const;
  /// backwardSteps, then the node's parameter gradients.
  void backwardInner(const op::Program& ops, grid::GridBinder& binder, const grid::GridRows& rows,
                     int node, float* gradients, int lane) const;
  /// Each example's rows of `buffer` of layer `layer` as F32 [h, w, size] (2-D) or [t, size].
  Tensor exampleRows(const grid::GridRows& rows, const grid::RowBuffer& buffer, int size, int layer,
                     int example) const;
  std::vector<std::vector<Tensor>> outputs(const grid::GridBinder& binder,
                                           const grid::GridRows& rows,
                                           const ExampleBatch& batch) const;
  /// Writes the given gradients of the outputs into their dy, after checking their shapes.
  void loadOutputGradients(grid::GridBinder& binder, const grid::GridRows& rows,
                           const std::vector<std::vector<Tensor>>& given) const;
};

const op::Program& GridEngine::Impl::externalProgram(bool inputGradients) const {
  std::unique_ptr<op::Program>& slot = external[inputGradients ? 1 : 0];
  if (!slot) {
    op::LoweringOptions lowering;
    lowering.externalOutputGradients = true;
    lowering.inputGradients = inputGradients;
    slot = std::make_unique<op::Program>(grid::gridProgram(plan, layout, lowering));
  }
  return *slot;
}

void GridEngine::Impl::forward(const op::Program& ops, grid::GridBinder& binder,
                               const grid::GridRows& rows, const ExampleBatch& batch,
                               int lanes) const {
  const int dimensions = plan.graph().dimensions;
  for (std::size_t i = 0; i < plan.inputLayers().size(); ++i) {
    const int layer = plan.inputLayers()[i];
    grid::LayerBuffers& b = binder.layer(layer);
    const grid::NodeRows& node = rows.node(rows.nodeOfLayer(layer));
    for (int r = 0; r < node.rows(); ++r) {
      const grid::Position& p = node.positions[r];
      const Example& example = batch.examples[p.example];
      const std::size_t cell = static_cast<std::size_t>(p.y) * example.width(dimensions) + p.x;
      const float* from = example.inputs[i].f32().data() + cell * b.size;
      std::copy(from, from + b.size, b.y.begin() + static_cast<std::ptrdiff_t>(r) * b.size);
    }
  }
  for (const std::vector<int>& group : groups(ops).forward) {
    if (lanes > 1 && group.size() > 1) {
      onLanes([&](int lane) {
        for (std::size_t i = lane; i < group.size(); i += lanes)
          forwardNode(ops, binder, rows, group[i], lane);
      });
      continue;
    }
    for (int n : group) forwardNode(ops, binder, rows, n, 0);
  }
}

void GridEngine::Impl::forwardNode(const op::Program& ops, grid::GridBinder& binder,
                                   const grid::GridRows& rows, int n, int lane) const {
  const op::NodeProgram& node = ops.nodes[n];
  const grid::NodeRows& nodeRows = rows.node(n);
  binder.run(n, node.forwardAll, 0, nodeRows.rows(), nullptr, lane);
  if (!node.recurrent) return;
  for (std::size_t k = 0; k + 1 < nodeRows.starts.size(); ++k)
    binder.run(n, node.forwardStep, nodeRows.starts[k], nodeRows.starts[k + 1] - nodeRows.starts[k],
               nullptr, lane);
}

void GridEngine::Impl::backward(const op::Program& ops, grid::GridBinder& binder,
                                const grid::GridRows& rows, float* gradients, int lanes) const {
  const auto& groupList = groups(ops).backward;
  for (auto group = groupList.rbegin(); group != groupList.rend(); ++group) {
    const std::size_t size = group->size();
    if (lanes > 1 && size > 1) {
      // The inner regions at once, from the last node; then the externals, which add into the
      // sources' gradients, one after the other from the last node, as the program orders them.
      onLanes([&](int lane) {
        for (std::size_t i = lane; i < size; i += lanes)
          backwardInner(ops, binder, rows, (*group)[size - 1 - i], gradients, lane);
      });
      for (std::size_t i = size; i-- > 0;) {
        const int n = (*group)[i];
        binder.run(n, ops.nodes[n].backwardExternal, 0, rows.node(n).rows(), gradients);
      }
      continue;
    }
    for (std::size_t i = size; i-- > 0;) {
      const int n = (*group)[i];
      backwardSteps(ops, binder, rows, n, gradients, 0);
      binder.run(n, ops.nodes[n].backwardExternal, 0, rows.node(n).rows(), gradients);
      binder.run(n, ops.nodes[n].gradients, 0, rows.node(n).rows(), gradients);
    }
  }
}

void GridEngine::Impl::backwardSteps(const op::Program& ops, grid::GridBinder& binder,
                                     const grid::GridRows& rows, int n, float* gradients,
                                     int lane) const {
  const op::NodeProgram& node = ops.nodes[n];
  const grid::NodeRows& nodeRows = rows.node(n);
  if (!node.recurrent) {
    binder.run(n, node.backwardAll, 0, nodeRows.rows(), gradients, lane);
    return;
  }
  for (std::size_t k = nodeRows.starts.size() - 1; k-- > 0;)
    binder.run(n, node.backwardStep, nodeRows.starts[k],
               nodeRows.starts[k + 1] - nodeRows.starts[k], gradients, lane);
}

void GridEngine::Impl::backwardInner(const op::Program& ops, grid::GridBinder& binder,
                                     const grid::GridRows& rows, int n, float* gradients,
                                     int lane) const {
  backwardSteps(ops, binder, rows, n, gradients, lane);
  binder.run(n, ops.nodes[n].gradients, 0, rows.node(n).rows(), gradients, lane);
}

const grid::NodeGroups& GridEngine::Impl::groups(const op::Program& ops) const {
  auto found = groupsOf.find(&ops);
  if (found == groupsOf.end()) found = groupsOf.emplace(&ops, grid::independentNodes(ops)).first;
  return found->second;
}

int GridEngine::Impl::lanes(const op::Program& ops) const {
  const int threads = options.threads > 0 ? options.threads : computeThreads();
  const int count = options.parallelNodes ? grid::laneCount(groups(ops), threads) : 1;
  if (count > 1 && (!pool || pool->size() != count)) pool = std::make_unique<WorkerPool>(count);
  return count;
}

void GridEngine::Impl::onLanes(const std::function<void(int)>& task) const {
  pool->run([&](int lane) {
    const ProductThreadsScope single(1);  // the lanes are the threads
    task(lane);
  });
}

Tensor GridEngine::Impl::exampleRows(const grid::GridRows& rows, const grid::RowBuffer& buffer,
                                     int size, int layer, int example) const {
  const GridExtent extent = rows.extent(layer, example);
  Shape shape =
      plan.grid(layer).dimensions == 2 ? Shape{extent.height, extent.width} : Shape{extent.width};
  shape.push_back(size);
  std::vector<float> cells(static_cast<std::size_t>(extent.cells()) * size);
  for (int y = 0; y < extent.height; ++y)
    for (int x = 0; x < extent.width; ++x) {
      const float* from =
          buffer.data() + static_cast<std::ptrdiff_t>(rows.rowAt(layer, example, x, y)) * size;
      std::copy(from, from + size,
                cells.begin() + (static_cast<std::ptrdiff_t>(y) * extent.width + x) * size);
    }
  return Tensor::fromF32(std::move(shape), std::move(cells));
}

std::vector<std::vector<Tensor>> GridEngine::Impl::outputs(const grid::GridBinder& binder,
                                                           const grid::GridRows& rows,
                                                           const ExampleBatch& batch) const {
  std::vector<std::vector<Tensor>> values(batch.examples.size());
  for (int layer : plan.outputLayers()) {
    const grid::LayerBuffers& b = binder.layer(layer);
    for (std::size_t e = 0; e < batch.examples.size(); ++e)
      values[e].push_back(exampleRows(rows, b.y, b.size, layer, static_cast<int>(e)));
  }
  return values;
}

void GridEngine::Impl::loadOutputGradients(grid::GridBinder& binder, const grid::GridRows& rows,
                                           const std::vector<std::vector<Tensor>>& given) const {
  const auto& outputs = plan.outputLayers();
  for (std::size_t e = 0; e < given.size(); ++e) {
    if (given[e].size() != outputs.size())
      throw std::invalid_argument("example " + std::to_string(e) + ": gradients of " +
                                  std::to_string(given[e].size()) + " outputs for a graph of " +
                                  std::to_string(outputs.size()));
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const int layer = outputs[o];
      grid::LayerBuffers& b = binder.layer(layer);
      const GridExtent extent = rows.extent(layer, static_cast<int>(e));
      Shape shape = plan.grid(layer).dimensions == 2 ? Shape{extent.height, extent.width}
                                                     : Shape{extent.width};
      shape.push_back(b.size);
      const Tensor& g = given[e][o];
      if (g.dtype() != DType::F32 || g.shape() != shape)
        throw std::invalid_argument("example " + std::to_string(e) +
                                    ": the gradient of output layer '" +
                                    plan.graph().layers[layer].id + "' is " + g.describe() +
                                    ", expected F32 " + shapeToString(shape));
      for (int y = 0; y < extent.height; ++y)
        for (int x = 0; x < extent.width; ++x) {
          const float* from =
              g.f32().data() + (static_cast<std::ptrdiff_t>(y) * extent.width + x) * b.size;
          std::copy(from, from + b.size,
                    b.dy.begin() +
                        static_cast<std::ptrdiff_t>(rows.rowAt(layer, static_cast<int>(e), x, y)) *
                            b.size);
        }
    }
  }
}

GridEngine::GridEngine(const CompiledPlan& plan, GridEngineOptions options) {
  const auto& names = packing::packerNames();
  if (options.packer != "padded" &&
      std::find(names.begin(), names.end(), options.packer) == names.end())
    throw std::invalid_argument("unknown packer '" + options.packer +
                                "' (the grid engine packs with baseline, shelf or padded)");
  m_impl = std::make_unique<Impl>(plan, std::move(options));
}

GridEngine::~GridEngine() = default;

GridForward GridEngine::forward(const ParameterSet& parameters, const ExampleBatch& batch,
                                bool withLoss, bool withOutputs) const {
  batch.check(m_impl->plan, withLoss);
  const grid::GridRows rows(m_impl->plan, batch, m_impl->options.packer);
  const int lanes = m_impl->lanes(m_impl->program);
  grid::GridBinder binder(m_impl->plan, m_impl->program, rows, parameters, m_impl->workspace,
                          lanes);
  m_impl->forward(m_impl->program, binder, rows, batch, lanes);
  GridForward result;
  if (withLoss)
    result.exampleLosses = grid::computeLosses(m_impl->plan, batch, rows, binder, false);
  if (withOutputs) result.outputs = m_impl->outputs(binder, rows, batch);
  m_impl->lastMemory = grid::memoryParts(grid::heldCounts(m_impl->workspace, binder, rows));
  return result;
}

double GridEngine::forwardBackward(const ParameterSet& parameters, const ExampleBatch& batch,
                                   ParameterSet& gradients) const {
  if (!(gradients.layout() == m_impl->layout))
    throw std::invalid_argument("the gradients' layout is not the graph's");
  batch.check(m_impl->plan, true);
  const grid::GridRows rows(m_impl->plan, batch, m_impl->options.packer);
  const int lanes = m_impl->lanes(m_impl->program);
  grid::GridBinder binder(m_impl->plan, m_impl->program, rows, parameters, m_impl->workspace,
                          lanes);
  m_impl->forward(m_impl->program, binder, rows, batch, lanes);
  binder.clearGradients();
  const std::vector<double> losses = grid::computeLosses(m_impl->plan, batch, rows, binder, true);
  m_impl->backward(m_impl->program, binder, rows, gradients.values().data(), lanes);
  gradients.applyMasks();
  m_impl->lastMemory = grid::memoryParts(grid::heldCounts(m_impl->workspace, binder, rows));
  return std::accumulate(losses.begin(), losses.end(), 0.0);
}

void GridEngine::backwardFromOutputs(const ParameterSet& parameters, const ExampleBatch& batch,
                                     const std::vector<std::vector<Tensor>>& outputGradients,
                                     ParameterSet& gradients,
                                     std::vector<std::vector<Tensor>>* inputGradients) const {
  if (!(gradients.layout() == m_impl->layout))
    throw std::invalid_argument("the gradients' layout is not the graph's");
  batch.check(m_impl->plan, false);
  if (outputGradients.size() != batch.examples.size())
    throw std::invalid_argument("gradients of the outputs of " +
                                std::to_string(outputGradients.size()) + " examples for " +
                                std::to_string(batch.examples.size()));
  const op::Program& ops = m_impl->externalProgram(inputGradients != nullptr);
  const grid::GridRows rows(m_impl->plan, batch, m_impl->options.packer);
  const int lanes = m_impl->lanes(ops);
  grid::GridBinder binder(m_impl->plan, ops, rows, parameters, m_impl->workspace, lanes);
  m_impl->forward(ops, binder, rows, batch, lanes);
  binder.clearGradients();
  m_impl->loadOutputGradients(binder, rows, outputGradients);
  m_impl->backward(ops, binder, rows, gradients.values().data(), lanes);
  gradients.applyMasks();
  m_impl->lastMemory = grid::memoryParts(grid::heldCounts(m_impl->workspace, binder, rows));
  if (!inputGradients) return;
  inputGradients->assign(batch.examples.size(), {});
  for (int layer : m_impl->plan.inputLayers()) {
    const grid::LayerBuffers& b = binder.layer(layer);
    for (std::size_t e = 0; e < batch.examples.size(); ++e)
      (*inputGradients)[e].push_back(
          m_impl->exampleRows(rows, b.dy, b.size, layer, static_cast<int>(e)));
  }
}

GridMemory GridEngine::lastBatchMemory() const { return m_impl->lastMemory; }

}  // namespace rnnwb
