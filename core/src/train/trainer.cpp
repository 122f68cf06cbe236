#include "rnnwb/core/train/trainer.hpp"

#include <cmath>
#include <numbers>

#include "chunk_runner.hpp"
#include "rnnwb/core/engine/backend_registry.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/rtrl_backend.hpp"
#include "rnnwb/core/train/checkpoint.hpp"
#include "rnnwb/core/train/learning_rate_schedule.hpp"
#include "rnnwb/core/train/resume_point.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/task_factory.hpp"
#include "run_reporter.hpp"
#include "update_loop.hpp"

namespace rnnwb::train {
namespace fs = std::filesystem;

namespace {

// The online gradient each RTRL stream keeps, so that results do not depend on the threads.
std::uint64_t streamGradientBytes(const CompiledPlan& plan, int streams) {
  return std::uint64_t{4} * static_cast<std::uint64_t>(ParameterLayout(plan).size()) *
         static_cast<std::uint64_t>(std::max(streams, 0));
}

// Exact RTRL and SnAp-n at n >= 2 carry |h|·|θ| entries per stream on dense networks: a run
// that cannot hold them is refused before any is allocated (and before the run folder is made),
// rather than dying out of memory mid-run.
void requireJacobiansFitMemory(const TrainConfig& c, const CompiledPlan& plan) {
  const std::uint64_t physical = physicalMemoryBytes();
  if (physical == 0) return;
  const std::uint64_t needed =
      snap::rtrlJacobianBytes(plan, snap::snapLevelOfAlgorithm(c.algo), c.streams) +
      streamGradientBytes(plan, c.streams);
  if (needed <= physical) return;
  throw std::invalid_argument(
      "algo " + c.algo + " would carry up to " + formatBytes(needed) +
      " of Jacobians and gradients for " + std::to_string(c.streams) +
      " streams, more than this machine's " + formatBytes(physical) +
      " of memory: train fewer streams (--streams) or a sparser level (snap1); `rnnwb mask "
      "GRAPH` gives the size of each level's Jacobian per stream");
}

// BPTT runs on any registered backend; the RTRL family runs on the CPU through RtrlBackend.
std::unique_ptr<Backend> makeTrainingBackend(const TrainConfig& c, const CompiledPlan& plan) {
  if (c.algo == "bptt") return makeBackend(c.backend, plan, BackendOptions{c.threads});
  requireJacobiansFitMemory(c, plan);
  // Results are bit-for-bit repeatable for one thread count; the resolved config keeps it.
  if (c.threads > 0) setBlasThreads(c.threads);
  return std::make_unique<snap::RtrlBackend>(plan, c.algo, c.threads);
}

std::int64_t stepsFor(const TrainConfig& c, const Task& task) {
  if (c.steps > 0) return c.steps;
  const double frames = c.epochs * static_cast<double>(task.framesPerEpoch());
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(frames / c.hPrime)));
}

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

std::string firstNonFinite(const ParameterSet& set) {
  for (const ParameterView& view : set.layout().views())
    if (!allFinite(set.view(view))) return view.key;
  return "?";
}

}  // namespace

class Trainer::Loop {
 public:
  Loop(TrainConfig config, const fs::path& runDir, const fs::path& graphFile,
       TrainingObserver* observer)
      : m_config(std::move(config)),
        m_folder(runDir),
        m_observer(observer),
        m_plan(loadValidGraph(graphFile)),
        m_params(m_plan),
        m_grads(m_plan),
        m_schedule(m_config.optimizer.learningRate, m_config.halveLrWhenWorse),
        m_reporter(m_position, m_schedule, observer) {
    validateTrainConfig(m_config);
    checkTaskFitsShape(m_config);
    m_task = makeTask(m_config.task, {m_config.streams, m_config.hPrime}, m_config.seed);
    m_task->checkGraph(m_plan);
    m_backend = makeTrainingBackend(m_config, m_plan);
    m_totalSteps = stepsFor(m_config, *m_task);
    m_params = initParameters(m_plan, m_config.seed);
    m_grads = ParameterSet::zerosLike(m_params);
    m_optimizer = makeOptimizer(m_config.optimizer, m_params.size());
    m_position.learningRate = m_schedule.rate();
  }

  void openOutputs() { m_reporter.openOutputs(m_folder); }

  void restore(const fs::path& checkpointFile) {
    Checkpoint c =
        loadCheckpoint(checkpointFile, m_plan, m_config.streams, m_config.optimizer.kind);
    m_params = std::move(c.parameters);
    m_grads = ParameterSet::zerosLike(m_params);
    m_optimizer->restore(c.optimizer);
    m_streams = std::move(c.streams);
    m_position = c.position;
    // RTRL / SnAp continue Ĵ where it was (it goes with the carried streams); a checkpoint
    // written without it restarts Ĵ at 0, as before Ĵ was saved.
    auto* rtrl = dynamic_cast<snap::RtrlBackend*>(m_backend.get());
    if (rtrl && !m_streams.empty() && !c.backendState.empty())
      rtrl->restoreJacobians(c.backendState, m_config.streams);
    m_schedule.restore(m_position.learningRate, m_position.previousValidLoss, m_position.halvings);
  }

  void describeStart(bool resumed) {
    const std::string what =
        resumed ? "resumed at step " + std::to_string(m_position.step) : "started";
    message("run " + what + ": task " + m_task->name() + ", " + std::to_string(m_params.size()) +
            " parameters, N = " + std::to_string(m_config.streams) + ", h = " +
            std::to_string(m_config.effectiveH()) + ", h' = " + std::to_string(m_config.hPrime) +
            ", " + std::string(toString(m_config.optimizer.kind)) + ", " +
            std::to_string(m_totalSteps) + " steps, backend " + std::string(m_backend->name()));
    if (auto* rtrl = dynamic_cast<snap::RtrlBackend*>(m_backend.get())) {
      const std::uint64_t perStream = rtrl->learner().bytesPerStream();
      const std::uint64_t gradient = streamGradientBytes(m_plan, 1);
      message("the Jacobians take " + formatBytes(perStream) + " per stream and its gradient " +
              formatBytes(gradient) + ": " +
              formatBytes((perStream + gradient) * static_cast<std::uint64_t>(m_config.streams)) +
              " for " + std::to_string(m_config.streams) + " streams");
    }
  }

  TrainOutcome run() {
    m_reporter.startSession();
    return runUpdateLoop(
        m_totalSteps, m_config, m_observer,
        {[this] { return m_position.step; }, [this] { update(); },
         [this](bool validate) { return report(validate); }, [this] { writeCheckpoint(); },
         [this](const std::string& text) { message(text); }});
  }

  const TrainConfig& config() const { return m_config; }
  std::int64_t totalSteps() const { return m_totalSteps; }
  const TrainingPosition& position() const { return m_position; }
  /// Continues with another learning rate (a resume that asks for one).
  void setLearningRate(double rate) { m_reporter.setLearningRate(rate); }
  void message(const std::string& text) { m_reporter.message(text); }

 private:
  void update() {
    const std::int64_t step = m_position.step + 1;
    const std::int64_t epoch = m_task->framesPerEpoch();
    const std::int64_t position = epoch > 0 ? m_position.cursor % epoch : m_position.cursor;
    if (position == 0) m_streams = StreamState();  // a new epoch: the text starts afresh
    const TruncationWindow window =
        truncationWindow(position, m_config.effectiveH(), m_config.hPrime);
    const TaskChunk chunk = m_task->trainingFrames(window.begin, window.frames);
    const ChunkLoss loss =
        forwardBackwardWindow(*m_backend, m_params, chunk, window, m_streams, m_grads);
    if (!std::isfinite(loss.summed))
      throw NonFiniteError(step, "the training loss is " + std::to_string(loss.summed));
    if (!m_grads.allFinite())
      throw NonFiniteError(step,
                           "the gradient of '" + firstNonFinite(m_grads) + "' is NaN or infinite");
    const float scale = loss.predicted > 0 ? 1.0f / static_cast<float>(loss.predicted) : 1.0f;
    for (float& g : m_grads.values()) g *= scale;
    const double norm = clipGradientNorm(m_grads.values(), m_config.clipNorm);
    m_optimizer->step(m_params.values(), m_grads.values(), m_schedule.rate());
    if (!m_params.allFinite())
      throw NonFiniteError(step, "the update made '" + firstNonFinite(m_params) +
                                     "' NaN or infinite (gradient norm " + std::to_string(norm) +
                                     ")");
    m_position.step = step;
    m_position.cursor += m_config.hPrime;
    m_reporter.countUpdate(loss.summed, loss.predicted, norm,
                           static_cast<std::int64_t>(m_config.streams) * m_config.hPrime);
  }

  MetricsRecord report(bool validate) {
    MetricsRecord r = m_reporter.startRecord(m_position.step * m_config.streams * m_config.hPrime);
    if (validate) {
      const ChunkLoss loss =
          evaluateValidation(*m_backend, m_params, *m_task, m_config.effectiveH());
      m_reporter.acceptValidation(
          loss.summed / static_cast<double>(std::max<std::int64_t>(1, loss.predicted)), r,
          *m_optimizer);
    }
    if (m_task->reportsBitsPerCharacter()) {
      r.trainBpc = r.trainLoss / std::numbers::ln2;
      if (r.validLoss) r.validBpc = *r.validLoss / std::numbers::ln2;
    }
    return m_reporter.finishRecord(r, m_totalSteps);
  }

  void writeCheckpoint() {
    m_reporter.updateWallSeconds();
    const fs::path path = m_folder.checkpointPath(m_position.step);
    TensorMap backendState;
    if (auto* rtrl = dynamic_cast<snap::RtrlBackend*>(m_backend.get()); rtrl && !m_streams.empty())
      backendState = rtrl->jacobianTensors();
    const Checkpoint checkpoint{m_params, m_optimizer->state(), m_streams, m_position,
                                backendState};
    saveCheckpoint(path, m_plan, checkpoint);
    m_folder.pruneCheckpoints(m_config.keepCheckpoints);
    m_reporter.log("checkpoint " + path.filename().string());
  }

  TrainConfig m_config;
  RunFolder m_folder;
  TrainingObserver* m_observer;
  CompiledPlan m_plan;
  std::unique_ptr<Task> m_task;
  std::unique_ptr<Backend> m_backend;
  ParameterSet m_params, m_grads;
  std::unique_ptr<Optimizer> m_optimizer;
  LearningRateSchedule m_schedule;
  StreamState m_streams;
  TrainingPosition m_position;
  RunReporter m_reporter;  // after the position and the schedule it refers to
  std::int64_t m_totalSteps = 0;
};

Trainer::Trainer(std::unique_ptr<Loop> loop) : m_loop(std::move(loop)) {}
Trainer::~Trainer() = default;
TrainOutcome Trainer::run() { return m_loop->run(); }
const TrainConfig& Trainer::config() const { return m_loop->config(); }
std::int64_t Trainer::totalSteps() const { return m_loop->totalSteps(); }

std::unique_ptr<Trainer> Trainer::startNew(const TrainConfig& config, const fs::path& runDir,
                                           TrainingObserver* observer) {
  validateTrainConfig(config);
  if (config.graph.empty()) throw std::invalid_argument("no graph file given");
  TrainConfig resolved = config;
  resolved.h = config.effectiveH();
  resolved.graph = fs::absolute(config.graph).lexically_normal().string();
  if (!resolved.task.text.empty())
    resolved.task.text = fs::absolute(resolved.task.text).lexically_normal().string();
  // Everything that can be wrong with the graph, the data or the options is found before the
  // run folder is made, so a failed start leaves nothing behind.
  auto loop = std::make_unique<Loop>(resolved, runDir, resolved.graph, observer);
  const RunFolder folder(runDir);
  folder.createForNewRun();
  saveGraphFile(loadValidGraph(resolved.graph), folder.graphPath());
  // The run stands alone: its config names its own copy of the graph (relative to the folder).
  TrainConfig kept = resolved;
  kept.graph = folder.graphPath().filename().string();
  writeFileAtomically(folder.configPath(), toJson(kept).dump(2) + "\n");
  loop->openOutputs();
  loop->describeStart(false);
  return std::unique_ptr<Trainer>(new Trainer(std::move(loop)));
}

std::unique_ptr<Trainer> Trainer::resume(const fs::path& runDir, const ResumeOverrides& overrides,
                                         TrainingObserver* observer) {
  const RunFolder folder(runDir);
  if (!folder.holdsRun())
    throw std::runtime_error(runDir.string() +
                             " holds no run to resume (no config.json and "
                             "graph.rnn.json)");
  TrainConfig config = loadTrainConfig(folder.configPath());
  if (overrides.steps) config.steps = *overrides.steps, config.epochs = 0.0;
  if (overrides.epochs) config.epochs = *overrides.epochs, config.steps = 0;
  auto loop = std::make_unique<Loop>(config, runDir, folder.graphPath(), observer);
  const ResumePoint from = restoreNewestCheckpoint(
      folder, [&](const fs::path& file) { return loop->restore(file), loop->position().step; });
  const auto& checkpoint = from.checkpoint;
  if (loop->totalSteps() < loop->position().step)
    throw std::invalid_argument("the run is already at step " +
                                std::to_string(loop->position().step) + "; it cannot end at step " +
                                std::to_string(loop->totalSteps()));
  if (overrides.learningRate) loop->setLearningRate(*overrides.learningRate);
  // Reports written after that checkpoint are about to be written again.
  truncateMetricsAfter(folder.metricsPath(), checkpoint ? loop->position().step : 0);
  if (overrides.steps || overrides.epochs) {
    TrainConfig kept = config;
    kept.graph = folder.graphPath().filename().string();
    writeFileAtomically(folder.configPath(), toJson(kept).dump(2) + "\n");
  }
  loop->openOutputs();
  loop->describeStart(true);
  for (const std::string& note : from.notes) loop->message(note);
  if (!checkpoint) loop->message("no checkpoint in the folder: starting over from step 0");
  if (overrides.learningRate)
    loop->message("learning rate set to " + shortNumber(*overrides.learningRate) + " from step " +
                  std::to_string(loop->position().step) + " on (--lr)");
  return std::unique_ptr<Trainer>(new Trainer(std::move(loop)));
}

}  // namespace rnnwb::train
