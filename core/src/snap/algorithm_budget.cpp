#include "rnnwb/core/snap/algorithm_budget.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <stdexcept>

#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"
#include "rnnwb/core/snap/sparse_matrix.hpp"

namespace rnnwb::snap {
namespace {

// Element-wise work per unit and frame: bias, aggregation, activation and its derivative.
constexpr double kElementwiseFlops = 10;

double connectionFlops(const CompiledPlan& plan, int c) {
  const Graph& graph = plan.graph();
  const double rows = graph.layers[plan.toLayer(c)].size;
  const double cols = graph.layers[plan.fromLayer(c)].size;
  switch (graph.connections[c].type) {
    case ConnectionType::Full:
      return 2 * rows * cols;  // sparse connections run as dense products with a mask
    case ConnectionType::Diagonal:
      return 2 * rows;
    default:
      return rows;
  }
}

// The forward flops of one step of recurrent node `node`: what one VJP through it costs.
double nodeStepFlops(const CompiledPlan& plan, int node) {
  const std::vector<int>& layers = plan.nodes()[node].layers;
  const auto inside = [&](int layer) {
    return std::find(layers.begin(), layers.end(), layer) != layers.end();
  };
  double flops = 0;
  for (int layer : layers) {
    flops += kElementwiseFlops * plan.graph().layers[layer].size;
    for (int c : plan.anterior(layer))
      if (inside(plan.fromLayer(c))) flops += connectionFlops(plan, c);
  }
  return flops;
}

struct NodeCost {
  std::uint64_t jacobianBytes = 0;  // Ĵ of one stream
  double flops = 0;                 // per frame of one stream, beyond forward + backward
  std::optional<std::string> refusal;
};

// What RTRL (level 0) or SnAp-n adds for one recurrent node, per stream.
NodeCost snapNodeCost(const CompiledPlan& plan, int node, int level) {
  NodeCost cost;
  if (auto refusal = rtrlRefusal(plan, node)) {
    cost.refusal = std::move(refusal);
    return cost;
  }
  const RtrlNodeLayout layout(plan, node);
  const SnapPatterns patterns(layout);
  const auto nnz =
      static_cast<double>(patterns.nnz(level == 0 ? patterns.exactMask() : patterns.mask(level)));
  double dynamicsNnz = 0;
  for (int column = 0; column < patterns.dynamics().columns(); ++column)
    dynamicsNnz += patterns.dynamics().countColumn(column);
  const double meanRowOfD = dynamicsNnz / std::max(1, patterns.stateSize());
  const int colours =
      colourRows(patterns.immediate()).colours + colourRows(patterns.dynamics()).colours;
  // As rtrlJacobianBytes stores it: CSR by parameter plus the masked product's output.
  cost.jacobianBytes = csrBytes(static_cast<std::uint64_t>(nnz),
                                static_cast<std::uint64_t>(patterns.parameterCount())) +
                       4 * static_cast<std::uint64_t>(nnz);
  cost.flops = colours * nodeStepFlops(plan, node) + 2 * nnz * meanRowOfD + 4 * nnz;
  return cost;
}

void checkQuery(const BudgetQuery& query) {
  const auto require = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
  };
  require(query.streams >= 1, "streams must be >= 1, not " + std::to_string(query.streams));
  require(query.window >= 1, "h must be >= 1, not " + std::to_string(query.window));
  require(query.newFrames >= 1 && query.newFrames <= query.window,
          "h' must be in [1, h = " + std::to_string(query.window) + "], not " +
              std::to_string(query.newFrames));
  require(query.optimizerSlots >= 0, "optimizer slots must be >= 0");
}

AlgorithmEstimate bpttRow(const CompiledPlan& plan, const BudgetQuery& query) {
  AlgorithmEstimate row;
  row.algorithm = "bptt";
  row.label = "BPTT(" + std::to_string(query.window) + "; " + std::to_string(query.newFrames) + ")";
  row.ownBytes = bpttChunkBytes(plan, query.window, query.streams);
  // Each update runs h frames forward and backward (backward: two products per forward one) to
  // advance h' frames.
  row.flopsPerFrame = 3 * forwardFlopsPerFrame(plan) * query.streams * query.window /
                      static_cast<double>(query.newFrames);
  return row;
}

AlgorithmEstimate snapRow(const CompiledPlan& plan, const BudgetQuery& query, int level,
                          std::uint64_t parameters) {
  AlgorithmEstimate row;
  row.algorithm = level == 0 ? "rtrl" : "snap" + std::to_string(level);
  row.label = level == 0 ? "exact RTRL" : "SnAp-" + std::to_string(level);
  std::uint64_t jacobianPerStream = 0;
  double flopsPerStream = 3 * forwardFlopsPerFrame(plan);
  for (int node = 0; node < static_cast<int>(plan.nodes().size()); ++node) {
    if (!plan.nodes()[node].recurrent) continue;
    NodeCost cost = snapNodeCost(plan, node, level);
    if (cost.refusal && !row.refusal) row.refusal = std::move(cost.refusal);
    jacobianPerStream += cost.jacobianBytes;
    flopsPerStream += cost.flops;
  }
  const auto streams = static_cast<std::uint64_t>(query.streams);
  // Ĵ for every stream and the learner's own pattern; one gradient per stream.
  row.ownBytes = jacobianPerStream * (streams + 1) + streams * parameters * 4;
  row.flopsPerFrame = flopsPerStream * query.streams;
  return row;
}

}  // namespace

std::uint64_t bpttChunkBytes(const CompiledPlan& plan, int frames, int streams) {
  const Graph& graph = plan.graph();
  const auto rowsOf = [&](int extraFrames) {
    return static_cast<std::uint64_t>(frames + extraFrames) * static_cast<std::uint64_t>(streams);
  };
  std::uint64_t floats = 0;
  for (int layer = 0; layer < static_cast<int>(graph.layers.size()); ++layer) {
    const auto size = static_cast<std::uint64_t>(graph.layers[layer].size);
    const int kept = plan.maxDelayFrom(layer);
    floats += rowsOf(kept) * size;                                // y, with delayed frames
    floats += static_cast<std::uint64_t>(kept) * streams * size;  // the carried state
    if (!graph.layers[layer].isInput())
      floats += (rowsOf(kept) + 2 * rowsOf(0)) * size;  // dy, s, ds
    if (graph.layers[layer].kind == LayerKind::Multiplicative)
      for (int c = 0; c < static_cast<int>(plan.anterior(layer).size()); ++c)
        floats += 2 * rowsOf(0) * size;  // each product's z and dz
  }
  return floats * 4;
}

double forwardFlopsPerFrame(const CompiledPlan& plan) {
  double flops = 0;
  for (int c = 0; c < static_cast<int>(plan.graph().connections.size()); ++c)
    flops += connectionFlops(plan, c);
  for (const Layer& layer : plan.graph().layers)
    if (!layer.isInput()) flops += kElementwiseFlops * layer.size;
  return flops;
}

BudgetTable estimateAlgorithms(const CompiledPlan& plan, const BudgetQuery& query,
                               double flopsPerSecond) {
  checkQuery(query);
  BudgetTable table;
  table.parameters = static_cast<std::int64_t>(ParameterSet(plan).size());
  const auto parameters = static_cast<std::uint64_t>(table.parameters);
  table.sharedBytes = parameters * 4 * (2 + static_cast<std::uint64_t>(query.optimizerSlots));
  table.flopsPerSecond = std::max(flopsPerSecond, 0.0);
  table.rows.push_back(bpttRow(plan, query));
  for (int level : {1, 2, 3, 0}) table.rows.push_back(snapRow(plan, query, level, parameters));
  for (AlgorithmEstimate& row : table.rows) {
    row.totalBytes = row.ownBytes + table.sharedBytes;
    row.fits = !row.refusal && row.totalBytes <= query.budgetBytes;
    if (table.flopsPerSecond > 0) row.secondsPerFrame = row.flopsPerFrame / table.flopsPerSecond;
  }
  return table;
}

namespace {

SequenceBatch randomBatch(const CompiledPlan& plan, int frames, int streams) {
  SequenceBatch batch{frames, streams, {}, {}, 0, -1};
  std::mt19937 random(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (int layer : plan.inputLayers()) {
    const int size = plan.graph().layers[layer].size;
    std::vector<float> values(std::size_t(frames) * streams * size);
    for (float& v : values) v = uniform(random);
    batch.inputs.push_back(Tensor::fromF32({frames, streams, size}, std::move(values)));
  }
  for (int layer : plan.outputLayers()) {
    const int size = plan.graph().layers[layer].size;
    batch.targets.push_back(plan.graph().layers[layer].loss == LossKind::CrossEntropy
                                ? Tensor::zerosI64({frames, streams})
                                : Tensor::zerosF32({frames, streams, size}));
  }
  return batch;
}

// The best wall time of `runs` forward + backward passes of the backend over the batch.
double bestSeconds(Backend& backend, const CompiledPlan& plan, const SequenceBatch& batch,
                   int runs) {
  const ParameterSet params = initParameters(plan, 1);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  double best = 0;
  for (int run = 0; run < runs; ++run) {  // the first run also allocates: keep the best
    const auto start = std::chrono::steady_clock::now();
    backend.forwardBackward(params, batch, {}, nullptr, &gradients);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (run == 0 || took.count() < best) best = took.count();
  }
  return best;
}

}  // namespace

double measureEngineRate(const CompiledPlan& plan, int streams, int threads) {
  constexpr int kFrames = 8;
  streams = std::clamp(streams, 1, 64);  // enough rows for the products' real rate
  CpuBackend backend(plan, {.threads = threads});
  const double seconds = bestSeconds(backend, plan, randomBatch(plan, kFrames, streams), 3);
  return seconds > 0 ? 3 * forwardFlopsPerFrame(plan) * kFrames * streams / seconds : 0;
}

void measureAlgorithms(const CompiledPlan& plan, const BudgetQuery& query, BudgetTable& table,
                       int threads, int sampleStreams) {
  const int streams = std::clamp(std::min(sampleStreams, query.streams), 1, query.streams);
  const double perStream = static_cast<double>(query.streams) / streams;
  for (AlgorithmEstimate& row : table.rows) {
    if (!row.fits) continue;
    if (row.algorithm == "bptt") {
      CpuBackend backend(plan, {.threads = threads});
      const double chunk = bestSeconds(backend, plan, randomBatch(plan, query.window, streams), 2);
      row.secondsPerFrame = chunk / query.newFrames * perStream;
    } else {
      constexpr int kFrames = 16;  // the learner folds queued frames 8 at a time
      RtrlBackend backend(plan, row.algorithm, threads);
      row.secondsPerFrame =
          bestSeconds(backend, plan, randomBatch(plan, kFrames, streams), 2) / kFrames * perStream;
    }
    row.measured = true;
  }
}

}  // namespace rnnwb::snap
