#include "sequence_learner.hpp"

#include <cmath>
#include <filesystem>

#include "chunk_runner.hpp"
#include "data_parallel.hpp"
#include "rnnwb/core/engine/backend_registry.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/folder_file.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/algorithm_budget.hpp"
#include "rnnwb/core/train/task_factory.hpp"
#include "rnnwb/core/train/trainer.hpp"
#include "starting_weights.hpp"

namespace rnnwb::train {

std::uint64_t sharedTrainingBytes(const TrainConfig& c, const CompiledPlan& plan) {
  const auto parameters = static_cast<std::uint64_t>(ParameterLayout(plan).size());
  const std::uint64_t slots = c.optimizer.kind == OptimizerKind::Adam ? 2 : 1;
  return checkedProduct({parameters, 4, 2 + slots}).value_or(~std::uint64_t{0});
}

std::string sharedTrainingText(const TrainConfig& c, const CompiledPlan& plan) {
  return std::to_string(ParameterLayout(plan).size()) + " parameters, their gradient and " +
         (c.optimizer.kind == OptimizerKind::Adam ? "Adam's two moments" : "SGD's momentum") +
         ": " + formatBytes(sharedTrainingBytes(c, plan));
}

namespace {

void checkTaskFitsShape(const TrainConfig& c) {
  if (c.task.kind == "adding" && c.hPrime < c.task.sequenceLength)
    throw std::invalid_argument(
        "the adding task has a target only at the end of each sequence, so "
        "h' must be >= sequence_length (" +
        std::to_string(c.task.sequenceLength) +
        ") for every update to "
        "have one; got h' = " +
        std::to_string(c.hPrime));
}

std::string firstNonFiniteIn(const ParameterSet& set) {
  for (const ParameterView& view : set.layout().views())
    if (!allFinite(set.view(view))) return view.key;
  return "?";
}

/// Refuses, before anything large is allocated, a run whose memory exceeds this machine's: the
/// parameters, their gradient and the optimizer's state (Adam two floats per parameter, SGD
/// one), and for BPTT on the CPU engine its chunk buffers (what `rnnwb budget` counts).
/// Otherwise an allocation fails after the data is made, or the machine swaps. RTRL / SnAp add
/// their Ĵ and per-stream gradients to the same shared part (rtrl_engine.cpp); the CUDA
/// backend's chunk buffers are on the device.
void requireMemoryForRun(const TrainConfig& c, const CompiledPlan& plan, int streams) {
  const std::uint64_t shared = sharedTrainingBytes(c, plan);
  const bool chunks = c.algo == "bptt" && c.backend == "cpu";
  const std::uint64_t chunkBytes = chunks ? snap::bpttChunkBytes(plan, c.effectiveH(), streams) : 0;
  std::uint64_t bytes = 0;
  const bool overflow = __builtin_add_overflow(shared, chunkBytes, &bytes);
  const std::string what = c.algo == "bptt" ? "training BPTT(" + std::to_string(c.effectiveH()) +
                                                  "; " + std::to_string(c.hPrime) + ")"
                                            : "training " + c.algo;
  requireMemory(overflow ? std::nullopt : std::optional<std::uint64_t>(bytes),
                what + " on " + std::to_string(streams) + " streams of " +
                    std::filesystem::path(c.graph).filename().string() + " (" +
                    sharedTrainingText(c, plan) +
                    (chunks ? ", chunk buffers " + formatBytes(chunkBytes) : std::string()) +
                    "; `rnnwb budget` shows what fits: fewer streams or a shorter h)");
}

/// The task of all N streams, cut to this rank's share in a data-parallel run.
std::unique_ptr<Task> taskFor(const TrainConfig& c, const CompiledPlan& plan,
                              const DataParallel* ranks) {
  requireStreamable(plan, "training with truncated BPTT or RTRL");
  requireEngineSupport(plan, "training", false);
  checkTaskFitsShape(c);
  requireMemoryForRun(c, plan, ranks ? c.streams / ranks->ranks() : c.streams);
  auto task = makeTask(c.task, {c.streams, c.hPrime}, c.seed);
  task->checkGraph(plan);
  return ranks ? ranks->shareOf(std::move(task)) : std::move(task);
}

}  // namespace

SequenceEngine bpttEngine(const TrainConfig& c, const CompiledPlan& plan) {
  SequenceEngine engine;
  engine.backend = makeBackend(c.backend, plan, BackendOptions{c.threads});
  return engine;
}

SequenceLearner::SequenceLearner(const TrainConfig& config, const SequenceEngineFactory& makeEngine,
                                 DataParallel* ranks)
    : m_config(config),
      m_ranks(ranks),
      m_plan(loadValidGraph(config.graph)),
      m_task(taskFor(m_config, m_plan, ranks)),
      m_engine(makeEngine(m_config, m_plan)),
      m_params(startingParameters(m_plan, m_config)),
      m_grads(ParameterSet::zerosLike(m_params)) {
  if (m_ranks) m_ranks->attachTo(*m_engine.backend);
}

std::string SequenceLearner::firstNonFinite(bool inGradients) const {
  return firstNonFiniteIn(inGradients ? m_grads : m_params);
}

BatchGradient SequenceLearner::computeGradient(const TrainingPosition& at, std::int64_t step) {
  const std::int64_t epoch = m_task->framesPerEpoch();
  const std::int64_t position = epoch > 0 ? at.cursor % epoch : at.cursor;
  if (position == 0) m_streams = StreamState();  // a new epoch: the text starts afresh
  const TruncationWindow window =
      truncationWindow(position, m_config.effectiveH(), m_config.hPrime);
  const TaskChunk chunk = m_task->trainingFrames(window.begin, window.frames);
  // Data-parallel: the sum over the ranks starts during the backward pass; its buckets are the
  // communicator's until it finishes (DataParallel::reduce checks and divides the sum).
  const bool summing = m_ranks && m_ranks->beginGradientSum(m_grads.values());
  const ChunkLoss loss =
      forwardBackwardWindow(*m_engine.backend, m_params, chunk, window, m_streams, m_grads);
  collectNodeTimes();
  if (!std::isfinite(loss.summed))
    throw NonFiniteError(step, "the training loss is " + std::to_string(loss.summed));
  BatchGradient b;
  b.lossSum = loss.summed;
  b.predicted = loss.predicted;
  b.consumed = static_cast<std::int64_t>(m_config.streams) * m_config.hPrime;
  b.cursorAdvance = m_config.hPrime;
  if (summing) return b;
  if (!m_grads.allFinite())
    throw NonFiniteError(step,
                         "the gradient of '" + firstNonFiniteIn(m_grads) + "' is NaN or infinite");
  const float scale = loss.predicted > 0 ? 1.0f / static_cast<float>(loss.predicted) : 1.0f;
  for (float& g : m_grads.values()) g *= scale;
  return b;
}

std::optional<Evaluation> SequenceLearner::evaluate() {
  ChunkLoss loss = evaluateValidation(*m_engine.backend, m_params, *m_task, m_config.effectiveH(),
                                      m_ranks ? m_ranks->stopAgreement() : StopAgreement());
  if (m_ranks) m_ranks->sumLoss(loss.summed, loss.predicted);
  return Evaluation{loss.summed / static_cast<double>(std::max<std::int64_t>(1, loss.predicted)),
                    std::nullopt, std::nullopt};
}

void SequenceLearner::collectNodeTimes() {
  const NodeTimes chunk = m_engine.backend->nodeTimes();
  if (chunk.empty()) return;
  m_engine.backend->resetNodeTimes();
  if (m_nodeTimes.empty())
    m_nodeTimes = NodeTimes{std::vector<double>(chunk.forwardSeconds.size()),
                            std::vector<double>(chunk.forwardSeconds.size()), 0, 0};
  for (std::size_t n = 0; n < chunk.forwardSeconds.size(); ++n) {
    m_nodeTimes.forwardSeconds[n] += chunk.forwardSeconds[n];
    m_nodeTimes.backwardSeconds[n] += chunk.backwardSeconds[n];
  }
  m_nodeTimes.forwardPasses += chunk.forwardPasses;
  m_nodeTimes.backwardPasses += chunk.backwardPasses;
}

std::optional<NodeTimesFile> SequenceLearner::nodeTimes(std::int64_t step) const {
  if (m_nodeTimes.empty()) return std::nullopt;
  return nodeTimesFile(m_plan, m_nodeTimes, step, std::string(m_engine.backend->name()));
}

std::int64_t SequenceLearner::stepsFor(const TrainConfig& c) const {
  if (c.steps > 0) return c.steps;
  const double frames = c.epochs * static_cast<double>(m_task->framesPerEpoch());
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(frames / c.hPrime)));
}

std::int64_t SequenceLearner::framesAfter(std::int64_t step) const {
  return step * m_config.streams * m_config.hPrime;
}

std::string SequenceLearner::describe(std::int64_t totalSteps) const {
  return "task " + m_task->name() + ", " + std::to_string(m_params.size()) +
         " parameters, N = " + std::to_string(m_config.streams) +
         ", h = " + std::to_string(m_config.effectiveH()) +
         ", h' = " + std::to_string(m_config.hPrime) + ", " +
         std::string(toString(m_config.optimizer.kind)) + ", " + std::to_string(totalSteps) +
         " steps, backend " + std::string(m_engine.backend->name());
}

TrainConfig SequenceLearner::writeRunFiles(const RunFolder& folder,
                                           const TrainConfig& resolved) const {
  writeFolderFile(folder.graphPath(), serializeGraph(loadValidGraph(resolved.graph)));
  return keepRunFiles(folder, resolved, m_params, /*writeFiles=*/true);
}

TrainConfig SequenceLearner::keptConfig(const RunFolder& folder, const TrainConfig& config) const {
  return keepRunFiles(folder, config, m_params, /*writeFiles=*/false);
}

void SequenceLearner::saveCheckpoint(const std::filesystem::path& path,
                                     const OptimizerState& optimizer,
                                     const TrainingPosition& position) const {
  TensorMap carried;
  if (m_engine.saveCarried && !m_streams.empty()) carried = m_engine.saveCarried();
  if (!m_ranks) {
    train::saveCheckpoint(path, m_plan, {m_params, optimizer, m_streams, position, carried});
    return;
  }
  // Every rank takes part in gathering the N streams (and Ĵ's rows); rank 0 alone writes.
  carried = m_ranks->wholeRows(carried);
  const StreamState streams = m_ranks->wholeStreams(m_plan, m_streams);
  if (m_ranks->writes())
    train::saveCheckpoint(path, m_plan, {m_params, optimizer, streams, position, carried});
}

// Every update advances the cursor by h', and after the first one the graph's delayed layers
// carry state: a checkpoint that says otherwise was not written by this run, and taking it
// would restart the carried state from zeros or read the data from another place, silently.
void SequenceLearner::requireConsistentPosition(const std::filesystem::path& path,
                                                const Checkpoint& c) const {
  const TrainingPosition& p = c.position;
  std::int64_t expected = 0;
  if (__builtin_mul_overflow(p.step, static_cast<std::int64_t>(m_config.hPrime), &expected) ||
      p.cursor != expected)
    throw std::runtime_error(path.string() + ": checkpoint cursor " + std::to_string(p.cursor) +
                             " is not step " + std::to_string(p.step) + " x h' " +
                             std::to_string(m_config.hPrime) +
                             " (each update advances it by h'): not a checkpoint of this run");
  bool delays = false;
  for (int l = 0; l < static_cast<int>(m_plan.graph().layers.size()); ++l)
    delays |= m_plan.maxDelayFrom(l) > 0;
  // The last update's window carried state into the next iff its carry was > 0 (the first
  // updates of a BPTT(h; h') run with h > h' recompute from frame 0 and carry none).
  const std::int64_t epoch = m_task->framesPerEpoch();
  const std::int64_t before = p.cursor - m_config.hPrime;
  const bool carried = p.step > 0 && truncationWindow(epoch > 0 ? before % epoch : before,
                                                      m_config.effectiveH(), m_config.hPrime)
                                             .carry > 0;
  if (delays && carried && c.streams.empty())
    throw std::runtime_error(path.string() + ": the checkpoint of step " + std::to_string(p.step) +
                             " holds no streams.* tensors, the state its delayed layers carry; "
                             "resuming would restart it from zeros");
}

TrainingPosition SequenceLearner::restoreCheckpoint(const std::filesystem::path& path,
                                                    Optimizer& optimizer) {
  Checkpoint c = loadCheckpoint(path, m_plan, m_config.streams, m_config.optimizer.kind);
  requireConsistentPosition(path, c);
  m_params = std::move(c.parameters);
  m_grads = ParameterSet::zerosLike(m_params);
  optimizer.restore(c.optimizer);
  // A checkpoint holds all N streams, whatever the number of ranks that wrote it.
  m_streams = m_ranks ? m_ranks->myStreams(c.streams) : std::move(c.streams);
  // RTRL / SnAp continue Ĵ where it was (it goes with the carried streams); a checkpoint
  // written without it restarts Ĵ at 0, as before Ĵ was saved.
  if (m_engine.restoreCarried && !m_streams.empty() && !c.backendState.empty())
    m_engine.restoreCarried(m_ranks ? m_ranks->myRows(c.backendState) : c.backendState,
                            m_task->shape().streams);
  return c.position;
}

}  // namespace rnnwb::train
