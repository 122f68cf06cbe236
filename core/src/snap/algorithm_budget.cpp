#include "rnnwb/core/snap/algorithm_budget.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>

#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"

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

// The SnAp levels of the table's rows after BPTT, in order: SnAp-1, 2, 3 and exact RTRL (0).
constexpr std::array<int, 4> kLevels = {1, 2, 3, 0};

struct NodeCosts {
  std::array<std::uint64_t, kLevels.size()> jacobianBytes{};  // Ĵ of one stream, per level
  std::array<double, kLevels.size()> flops{};  // per frame of one stream, beyond fwd + bwd
  std::optional<std::string> refusal;
};

// What RTRL and SnAp-n add for one recurrent node at each level, per stream. The patterns, the
// colourings and D's rows are built once for all levels (they take most of the time).
NodeCosts snapNodeCosts(const CompiledPlan& plan, int node) {
  NodeCosts costs;
  if (auto refusal = rtrlRefusal(plan, node)) {
    costs.refusal = std::move(refusal);
    return costs;
  }
  const RtrlNodeLayout layout(plan, node);
  const SnapPatterns patterns(layout);
  double dynamicsNnz = 0;
  for (int column = 0; column < patterns.dynamics().columns(); ++column)
    dynamicsNnz += patterns.dynamics().countColumn(column);
  const double meanRowOfD = dynamicsNnz / std::max(1, patterns.stateSize());
  const int colours =
      colourRows(patterns.immediate()).colours + colourRows(patterns.dynamics()).colours;
  const double vjps = colours * nodeStepFlops(plan, node);
  for (std::size_t k = 0; k < kLevels.size(); ++k) {
    const int level = kLevels[k];
    const auto nnz =
        static_cast<double>(patterns.nnz(level == 0 ? patterns.exactMask() : patterns.mask(level)));
    costs.jacobianBytes[k] = nodeJacobianBytes(patterns, level);
    costs.flops[k] = vjps + 2 * nnz * meanRowOfD + 4 * nnz;
  }
  return costs;
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

// The rows of SnAp-1, 2, 3 and exact RTRL, from one pass over the recurrent nodes.
// Whether SnAp's patterns of the node may be built to size its Ĵ: they take rtrlLayoutBytes,
// which must fit in half this machine's memory (budget holds what it sizes only where that is
// small); otherwise the reason.
std::optional<std::string> notSizable(const CompiledPlan& plan, int node) {
  const std::optional<std::uint64_t> bytes = rtrlLayoutBytes(plan, node);
  const std::uint64_t physical = physicalMemoryBytes();
  if (bytes && (physical == 0 || *bytes <= physical / 2)) return std::nullopt;
  return "SnAp and RTRL not sized: SnAp's patterns of " + recurrentNodeName(plan, node) +
         " would themselves take " +
         (bytes ? formatBytes(*bytes) : std::string("more than 64 bits can count")) +
         " (more than " + formatBytes(physical / 2) +
         ", half this machine's memory); their memory shown is the least Ĵ takes";
}

// Ĵ's least bytes when the patterns are not built: one entry (index and value) per parameter.
std::uint64_t leastJacobianBytes(const CompiledPlan& plan, int node) {
  const std::optional<std::uint64_t> bytes = rtrlLayoutBytes(plan, node);
  return bytes ? *bytes / 9 * 8 : std::numeric_limits<std::uint64_t>::max() / 4;
}

std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

std::uint64_t saturatingProduct(std::uint64_t a, std::uint64_t b) {
  return checkedProduct({a, b}).value_or(std::numeric_limits<std::uint64_t>::max());
}

std::vector<AlgorithmEstimate> snapRows(const CompiledPlan& plan, const BudgetQuery& query,
                                        std::uint64_t parameters,
                                        std::vector<std::string>& unmeasured) {
  std::vector<AlgorithmEstimate> rows(kLevels.size());
  std::array<std::uint64_t, kLevels.size()> jacobianPerStream{};
  std::array<double, kLevels.size()> flopsPerStream{};
  flopsPerStream.fill(3 * forwardFlopsPerFrame(plan));
  std::optional<std::string> refusal;
  for (int node = 0; node < static_cast<int>(plan.nodes().size()); ++node) {
    if (!plan.nodes()[node].recurrent) continue;
    NodeCosts costs;
    if (auto reason = notSizable(plan, node); reason && !rtrlRefusal(plan, node)) {
      costs.refusal = "not sized (see the note)";
      unmeasured.push_back(std::move(*reason));
      costs.jacobianBytes.fill(leastJacobianBytes(plan, node));
    } else {
      costs = snapNodeCosts(plan, node);
    }
    if (costs.refusal && !refusal) refusal = std::move(costs.refusal);
    for (std::size_t k = 0; k < kLevels.size(); ++k) {
      jacobianPerStream[k] = saturatingAdd(jacobianPerStream[k], costs.jacobianBytes[k]);
      flopsPerStream[k] += costs.flops[k];
    }
  }
  const auto streams = static_cast<std::uint64_t>(query.streams);
  for (std::size_t k = 0; k < kLevels.size(); ++k) {
    const int level = kLevels[k];
    AlgorithmEstimate& row = rows[k];
    row.algorithm = level == 0 ? "rtrl" : "snap" + std::to_string(level);
    row.label = level == 0 ? "exact RTRL" : "SnAp-" + std::to_string(level);
    row.refusal = refusal;
    // Ĵ for every stream and the learner's own pattern; one gradient per stream.
    row.ownBytes = saturatingAdd(saturatingProduct(jacobianPerStream[k], streams + 1),
                                 saturatingProduct(streams, parameters * 4));
    row.flopsPerFrame = flopsPerStream[k] * query.streams;
  }
  return rows;
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
  table.parameters = static_cast<std::int64_t>(ParameterLayout(plan).size());
  const auto parameters = static_cast<std::uint64_t>(table.parameters);
  table.sharedBytes = parameters * 4 * (2 + static_cast<std::uint64_t>(query.optimizerSlots));
  table.flopsPerSecond = std::max(flopsPerSecond, 0.0);
  table.rows.push_back(bpttRow(plan, query));
  for (AlgorithmEstimate& row : snapRows(plan, query, parameters, table.unmeasured))
    table.rows.push_back(std::move(row));
  for (AlgorithmEstimate& row : table.rows) {
    row.totalBytes = saturatingAdd(row.ownBytes, table.sharedBytes);
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

// The best wall time of `runs` forward + backward passes of the backend over the batch; nothing
// when the stop is requested before a run starts (a started pass is not interrupted).
std::optional<double> bestSeconds(Backend& backend, const CompiledPlan& plan,
                                  const SequenceBatch& batch, int runs,
                                  const std::stop_token& stop) {
  const ParameterSet params = initParameters(plan, 1);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  double best = 0;
  for (int run = 0; run < runs; ++run) {  // the first run also allocates: keep the best
    if (stop.stop_requested()) return std::nullopt;
    const auto start = std::chrono::steady_clock::now();
    backend.forwardBackward(params, batch, {}, nullptr, &gradients);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (run == 0 || took.count() < best) best = took.count();
  }
  return best;
}

}  // namespace

double measureEngineRate(const CompiledPlan& plan, int streams, int threads,
                         const std::stop_token& stop) {
  constexpr int kFrames = 8;
  streams = std::clamp(streams, 1, 64);  // enough rows for the products' real rate
  CpuBackend backend(plan, {.threads = threads});
  const std::optional<double> seconds =
      bestSeconds(backend, plan, randomBatch(plan, kFrames, streams), 3, stop);
  return seconds && *seconds > 0 ? 3 * forwardFlopsPerFrame(plan) * kFrames * streams / *seconds
                                 : 0;
}

std::uint64_t engineRateBytes(const CompiledPlan& plan, int streams) {
  constexpr int kFrames = 8;
  streams = std::clamp(streams, 1, 64);
  std::uint64_t batch = 0;
  for (int layer : plan.inputLayers()) batch += plan.graph().layers[layer].size;
  for (int layer : plan.outputLayers()) batch += plan.graph().layers[layer].size;
  const auto parameters = static_cast<std::uint64_t>(ParameterLayout(plan).size());
  return saturatingAdd(saturatingProduct(parameters, 8),
                       bpttChunkBytes(plan, kFrames, streams) + 4 * kFrames * streams * batch);
}

double measureEngineRateIfItFits(const CompiledPlan& plan, const BudgetQuery& query, int threads,
                                 std::vector<std::string>& unmeasured,
                                 const std::stop_token& stop) {
  const std::uint64_t bytes = engineRateBytes(plan, query.streams);
  const std::uint64_t physical = physicalMemoryBytes();
  const bool withinBudget = query.budgetBytes == 0 || bytes <= query.budgetBytes;  // 0: none
  if (withinBudget && (physical == 0 || bytes <= physical))
    return measureEngineRate(plan, query.streams, threads, stop);
  unmeasured.push_back("the engine's rate: not measured, its sample run would take " +
                       formatBytes(bytes) + ", more than the budget or this machine's memory");
  return 0;
}

bool measureAlgorithms(const CompiledPlan& plan, const BudgetQuery& query, BudgetTable& table,
                       int threads, int sampleStreams, const MeasureLimits& limits) {
  constexpr int kRtrlFrames = 16;  // the learner folds queued frames 8 at a time
  const int streams = std::clamp(std::min(sampleStreams, query.streams), 1, query.streams);
  const double perStream = static_cast<double>(query.streams) / streams;
  const std::uint64_t physical = physicalMemoryBytes();
  for (AlgorithmEstimate& row : table.rows) {
    if (!row.fits) continue;
    if (physical && row.totalBytes > physical) {
      table.unmeasured.push_back(row.label + ": not measured, it would take " +
                                 formatBytes(row.totalBytes) + ", more than this machine's " +
                                 formatBytes(physical));
      continue;
    }
    const bool bptt = row.algorithm == "bptt";
    const int frames = bptt ? query.window : kRtrlFrames;
    // The model's time of one sample run (its secondsPerFrame is per frame of all N streams).
    const double modelled = row.secondsPerFrame / perStream * (bptt ? query.newFrames : frames);
    if (limits.maxSampleSeconds > 0 && modelled > limits.maxSampleSeconds) continue;
    const SequenceBatch batch = randomBatch(plan, frames, streams);
    std::optional<double> seconds;
    if (bptt) {
      CpuBackend backend(plan, {.threads = threads});
      seconds = bestSeconds(backend, plan, batch, 2, limits.stop);
    } else {
      RtrlBackend backend(plan, row.algorithm, threads);
      seconds = bestSeconds(backend, plan, batch, 2, limits.stop);
    }
    if (!seconds) return false;
    row.secondsPerFrame = *seconds / (bptt ? query.newFrames : frames) * perStream;
    row.measured = true;
  }
  return !limits.stop.stop_requested();
}

}  // namespace rnnwb::snap
