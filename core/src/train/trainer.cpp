#include "rnnwb/core/train/trainer.hpp"

#include <cmath>
#include <numbers>
#include <optional>

#include "config_changes.hpp"
#include "data_parallel.hpp"
#include "rnnwb/core/engine/cpu_backend.hpp"
#include "rnnwb/core/engine/product_precision.hpp"
#include "rnnwb/core/folder_file.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/train/learner.hpp"
#include "rnnwb/core/train/learning_rate_schedule.hpp"
#include "rnnwb/core/train/resume_point.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/run_spec.hpp"
#include "run_reporter.hpp"
#include "starting_weights.hpp"
#include "update_loop.hpp"

namespace rnnwb::train {
namespace fs = std::filesystem;

namespace {

/// The one place a run sets the process's threads: results are bit-for-bit repeatable for one
/// thread count, and the resolved config keeps it.
void claimThreads(const TrainConfig& c) {
  if (c.threads > 0) setBlasThreads(c.threads);
}

/// What the run log says of the products' precision.
std::string precisionDescription() {
  if (productPrecision() == ProductPrecision::F32) return "f32";
  return "bf16 (bf16 inputs, f32 sums; CPU ISA " + productIsa() + ")";
}

/// The config of a new run: every path absolute, h with its default applied.
TrainConfig resolvedForNewRun(const TrainConfig& config) {
  TrainConfig r = config;
  r.h = config.effectiveH();
  for (const Setting& s : runSpec()) {
    if (s.type != SettingType::Path) continue;
    const std::string path = s.get(r).get<std::string>();
    if (!path.empty()) s.set(r, fs::absolute(path).lexically_normal().string());
  }
  return r;
}

[[noreturn]] void refuseEditedConfig(const RunFolder& folder, const fs::path& checkpoint,
                                     const std::vector<std::string>& changes) {
  std::string list;
  for (const std::string& change : changes) list += (list.empty() ? "" : "; ") + change;
  throw std::runtime_error(folder.configPath().string() + ": edited since " +
                           checkpoint.filename().string() + " was written (" + list +
                           "); --resume continues a run only under its own config: put the "
                           "values back, or start a new run (--run-dir) with the new config");
}

void writeConfig(const RunFolder& folder, const TrainConfig& kept) {
  writeFolderFile(folder.configPath(), toJson(kept).dump(2) + "\n");
}

}  // namespace

class Trainer::Loop {
 public:
  Loop(TrainConfig config, const fs::path& runDir, TrainingObserver* observer,
       dist::Communicator* world)
      : m_config(std::move(config)),
        m_ranks(world, m_config),
        m_folder(runDir),
        m_observer(observer),
        m_schedule(m_config.optimizer.learningRate, m_config.halveLrWhenWorse),
        m_reporter(m_position, m_schedule, observer) {
    validateTrainConfig(m_config);
    claimThreads(m_config);
    // Before the learner, whose engine's packed products take the precision when made; refused
    // (naming the processor's instruction set) before anything is written.
    m_precision.emplace(productPrecisionFromName(m_config.precision));
    m_learner = makeLearner(m_config, &m_ranks);
    if (!m_ranks.single()) m_reducer = &m_ranks;
    m_totalSteps = m_learner->stepsFor(m_config);
    m_optimizer = makeOptimizer(m_config.optimizer, m_learner->parameters().size());
    m_position.learningRate = m_schedule.rate();
  }

  Learner& learner() { return *m_learner; }
  const RunFolder& folder() const { return m_folder; }
  /// Only rank 0 of a data-parallel run writes the folder.
  bool writesFolder() const { return m_ranks.writes(); }
  void openOutputs() {
    if (writesFolder()) m_reporter.openOutputs(m_folder);
  }

  void restore(const fs::path& checkpointFile) {
    m_position = m_learner->restoreCheckpoint(checkpointFile, *m_optimizer);
    m_schedule.restore(m_position.learningRate, m_position.previousValidLoss, m_position.halvings);
  }

  void describeStart(bool resumed) {
    const std::string what =
        resumed ? "resumed at step " + std::to_string(m_position.step) : "started";
    message("run " + what + ": " + m_learner->describe(m_totalSteps) + "; CPU products " +
            productKernels() + "; products in " + precisionDescription());
    if (!resumed && !m_config.initWeights.empty())
      message("weights from " + m_config.initWeights + " (kept in the run folder as " +
              kStartingWeightsFile + ")");
    if (!m_ranks.single())
      message("data-parallel over " + std::to_string(m_ranks.ranks()) + " ranks (" +
              m_ranks.world().name() + "), " +
              (m_config.task.kind == "words"
                   ? std::string("each batch's examples shared by packed area")
                   : std::to_string(m_ranks.share().count) + " streams each"));
    if (const std::string sum = m_ranks.sumDescription(m_config); !sum.empty()) message(sum);
    for (const std::string& line : m_learner->memoryLines()) message(line);
  }

  TrainOutcome run() {
    m_reporter.startSession();
    const TrainOutcome outcome = runUpdateLoop(
        m_totalSteps, m_config, m_observer,
        {[this] { return m_position.step; }, [this] { update(); },
         [this](bool validate) { return report(validate); }, [this] { writeCheckpoint(); },
         [this](const std::string& text) { message(text); },
         [this](const std::string& text) { m_reporter.log(text); },
         writesFolder() ? m_folder.dir() : fs::path(), [this] { return m_position.owedReport; }},
        [this] { return m_ranks.agreedStopSignal(); });
    if (const std::string counts = m_ranks.sumCounts(); !counts.empty()) message(counts);
    return outcome;
  }

  const TrainConfig& config() const { return m_config; }
  std::int64_t totalSteps() const { return m_totalSteps; }
  const TrainingPosition& position() const { return m_position; }
  void setLearningRate(double rate) { m_reporter.setLearningRate(rate); }
  void setGradientReducer(GradientReducer* reducer) { m_reducer = reducer; }
  void message(const std::string& text) { m_reporter.message(text); }

 private:
  void update() {
    const std::int64_t step = m_position.step + 1;
    BatchGradient batch = m_learner->computeGradient(m_position, step);
    if (m_reducer) m_reducer->reduce(m_learner->gradients(), batch);
    // Summed over the ranks, a gradient NaN on one is NaN on all: they stop together.
    if (m_reducer && !allFinite(m_learner->gradients()))
      throw NonFiniteError(step, "the gradient of '" + m_learner->firstNonFinite(true) +
                                     "' summed over the ranks is NaN or infinite");
    const double norm = clipGradientNorm(m_learner->gradients(), m_config.clipNorm);
    if (batch.teaches) {
      m_optimizer->step(m_learner->parameters(), m_learner->gradients(), m_schedule.rate());
      m_learner->parametersChanged();
    }
    if (!allFinite(m_learner->parameters()))
      throw NonFiniteError(step, "the update made '" + m_learner->firstNonFinite(false) +
                                     "' NaN or infinite (gradient norm " + std::to_string(norm) +
                                     ")");
    m_ranks.checkSameParameters(m_learner->parameters(), step);
    m_position.step = step;
    m_position.cursor += batch.cursorAdvance;
    m_reporter.countUpdate(batch.lossSum, batch.predicted, norm, batch.consumed);
  }

  MetricsRecord report(bool validate) {
    m_position.owedReport = validate ? 2 : 1;  // until it is written: a stop inside owes it
    MetricsRecord r = m_reporter.startRecord(m_learner->framesAfter(m_position.step));
    if (validate) {
      if (const std::optional<Evaluation> e = m_learner->evaluate()) {
        r.cer = e->cer;
        r.wer = e->wer;
        m_reporter.acceptValidation(e->meanLoss, r, *m_optimizer);
      }
    }
    if (m_learner->reportsBitsPerCharacter()) {
      r.trainBpc = r.trainLoss / std::numbers::ln2;
      if (r.validLoss) r.validBpc = *r.validLoss / std::numbers::ln2;
    }
    if (!m_ranks.single()) r.ranks = m_ranks.ranks();
    if (writesFolder())
      if (const auto times = m_learner->nodeTimes(m_position.step))
        writeNodeTimes(m_folder.dir() / "node_times.json", *times);
    MetricsRecord written = m_reporter.finishRecord(r, m_totalSteps);
    m_position.owedReport = 0;
    return written;
  }

  void writeCheckpoint() {
    m_reporter.updateWallSeconds();
    const fs::path path = m_folder.checkpointPath(m_position.step);
    m_position.config = resumeFingerprint(m_config);  // what --resume compares config.json with
    m_learner->saveCheckpoint(path, m_optimizer->state(), m_position);  // collective
    if (!writesFolder()) return;
    m_folder.pruneCheckpoints(m_config.keepCheckpoints);
    m_reporter.log("checkpoint " + path.filename().string());
  }

  TrainConfig m_config;
  DataParallel m_ranks;  // before the learner, which refers to it
  RunFolder m_folder;
  TrainingObserver* m_observer;
  std::optional<ProductPrecisionScope> m_precision;  // outlives the learner's engine
  std::unique_ptr<Learner> m_learner;
  std::unique_ptr<Optimizer> m_optimizer;
  LearningRateSchedule m_schedule;
  TrainingPosition m_position;
  RunReporter m_reporter;  // after the position and the schedule it refers to
  GradientReducer* m_reducer = nullptr;
  std::int64_t m_totalSteps = 0;
};

Trainer::Trainer(std::unique_ptr<Loop> loop) : m_loop(std::move(loop)) {}
Trainer::~Trainer() = default;
TrainOutcome Trainer::run() { return m_loop->run(); }
const TrainConfig& Trainer::config() const { return m_loop->config(); }
std::int64_t Trainer::totalSteps() const { return m_loop->totalSteps(); }
void Trainer::setGradientReducer(GradientReducer* reducer) { m_loop->setGradientReducer(reducer); }

std::unique_ptr<Trainer> Trainer::startNew(const TrainConfig& config, const fs::path& runDir,
                                           TrainingObserver* observer, dist::Communicator* world) {
  validateTrainConfig(config);
  if (config.graph.empty()) throw std::invalid_argument("no graph file given");
  TrainConfig resolved = resolvedForNewRun(config);
  resolved.ranks = world ? world->size() : 1;
  // Everything that can be wrong with the graph, the data or the options is found before the
  // run folder is made, so a failed start leaves nothing behind.
  auto loop = std::make_unique<Loop>(resolved, runDir, observer, world);
  if (!loop->writesFolder()) return std::unique_ptr<Trainer>(new Trainer(std::move(loop)));
  const RunFolder& folder = loop->folder();
  folder.createForNewRun();
  // The run stands alone: its config names its own copies (graph, model), relative to the folder.
  writeConfig(folder, loop->learner().writeRunFiles(folder, resolved));
  loop->openOutputs();
  loop->describeStart(false);
  // A config kept from a run under another launch, say; 1 is also the default, which a config
  // written by hand leaves out, so only another number is worth a word.
  if (config.ranks != 1 && config.ranks != resolved.ranks)
    loop->message("the config says ranks " + std::to_string(config.ranks) + ", this run has " +
                  std::to_string(resolved.ranks) +
                  ": the launcher sets the number of ranks (mpirun -np " +
                  std::to_string(config.ranks) + " rnnwb train ...; docs/distributed.md)");
  return std::unique_ptr<Trainer>(new Trainer(std::move(loop)));
}

std::unique_ptr<Trainer> Trainer::resume(const fs::path& runDir, const ResumeOverrides& overrides,
                                         TrainingObserver* observer, dist::Communicator* world) {
  const RunFolder folder(runDir);
  std::optional<TrainConfig> kept;  // the folder's config, read once
  if (fs::exists(folder.configPath())) kept = loadTrainConfig(folder.configPath());
  if (!folder.holdsRun())
    throw std::runtime_error(runDir.string() +
                             " holds no run to resume (no config.json and "
                             "graph.rnn.json)");
  TrainConfig config = *kept;
  if (overrides.steps) config.steps = *overrides.steps, config.epochs = 0.0;
  if (overrides.epochs) config.epochs = *overrides.epochs, config.steps = 0;
  const int ranksBefore = config.ranks;
  config.ranks = world ? world->size() : 1;
  std::unique_ptr<Loop> loop;
  try {  // what is wrong with the folder's config is said of config.json
    loop = std::make_unique<Loop>(config, runDir, observer, world);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(folder.configPath().string() + ": " + e.what());
  }
  const ResumePoint from = restoreNewestCheckpoint(
      folder, [&](const fs::path& file) { return loop->restore(file), loop->position().step; },
      loop->writesFolder());
  const auto& checkpoint = from.checkpoint;
  const ConfigChanges changes =
      checkpoint && !loop->position().config.empty()
          ? configChanges(loop->position().config, resumeFingerprint(loop->config()))
          : ConfigChanges{};
  if (!changes.refused.empty()) refuseEditedConfig(folder, *checkpoint, changes.refused);
  if (loop->totalSteps() < loop->position().step)
    throw std::invalid_argument("the run is already at step " +
                                std::to_string(loop->position().step) + "; it cannot end at step " +
                                std::to_string(loop->totalSteps()));
  if (overrides.learningRate) loop->setLearningRate(*overrides.learningRate);
  if (!loop->writesFolder()) return std::unique_ptr<Trainer>(new Trainer(std::move(loop)));
  // Reports written after that checkpoint are about to be written again.
  // An owed report is written again, so a line of it from an earlier resume goes too.
  const TrainingPosition& at = loop->position();
  truncateMetricsAfter(folder.metricsPath(), checkpoint ? at.step - (at.owedReport ? 1 : 0) : 0);
  if (overrides.steps || overrides.epochs || config.ranks != ranksBefore)
    writeConfig(folder, loop->learner().keptConfig(folder, config));
  loop->openOutputs();
  loop->describeStart(true);
  for (const std::string& note : from.notes) loop->message(note);
  for (const std::string& change : changes.logged)
    loop->message("config.json was edited since the checkpoint: " + change);
  if (!checkpoint) loop->message("no checkpoint in the folder: starting over from step 0");
  if (config.ranks != ranksBefore)
    loop->message("resumed under " + std::to_string(config.ranks) + " rank(s); the run had " +
                  std::to_string(ranksBefore));
  if (overrides.learningRate)
    loop->message("learning rate set to " + shortNumber(*overrides.learningRate) + " from step " +
                  std::to_string(loop->position().step) + " on (--lr)");
  return std::unique_ptr<Trainer>(new Trainer(std::move(loop)));
}

ResumeOverrides resumeOverrides(const std::map<std::string, nlohmann::json>& given) {
  ResumeOverrides overrides;
  if (given.count("steps")) overrides.steps = given.at("steps").get<std::int64_t>();
  if (given.count("epochs")) overrides.epochs = given.at("epochs").get<double>();
  if (given.count("optimizer.learning_rate"))
    overrides.learningRate = given.at("optimizer.learning_rate").get<double>();
  return overrides;
}

}  // namespace rnnwb::train
