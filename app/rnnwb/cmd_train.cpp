// rnnwb train GRAPH --task TASK [options] --run-dir DIR: truncated BPTT(h; h') over N streams,
// writing a run folder that can be resumed (--resume) and followed by the workbench.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli_support.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/run_folder_lock.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/trainer.hpp"
#include "rnnwb/core/train/words_trainer.hpp"

namespace rnnwb::cli {
namespace {

using train::MetricsRecord;

/// "%.4f" of a value, with " (x.xxx bpc)" when the task reports bits per character.
std::string lossText(double nats, const std::optional<double>& bits) {
  char text[64];
  if (bits)
    std::snprintf(text, sizeof text, "%.4f (%.3f bpc)", nats, *bits);
  else
    std::snprintf(text, sizeof text, "%.4f", nats);
  return text;
}

/// "1h02m", "3m05s", "12s".
std::string durationText(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, s % 3600 / 60);
  else if (s >= 60)
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lds", s);
  return text;
}

/// A progress bar on a terminal (redrawn at most ten times a second), plain lines otherwise.
class ProgressPrinter final : public train::TrainingObserver {
  using Clock = std::chrono::steady_clock;

 public:
  ProgressPrinter() : m_terminal(::isatty(STDERR_FILENO) != 0) {}
  ~ProgressPrinter() override { endBar(); }

  void onStep(std::int64_t step, std::int64_t total) override {
    const Clock::time_point now = Clock::now();
    if (m_firstStep < 0) m_firstStep = step - 1, m_start = now;
    if (!m_terminal || (step != total && now - m_lastDraw < std::chrono::milliseconds(100))) return;
    m_lastDraw = now;
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    const double perStep =
        elapsed / static_cast<double>(std::max<std::int64_t>(1, step - m_firstStep));
    const int width = 30;
    const int filled = static_cast<int>(width * step / std::max<std::int64_t>(1, total));
    // "\033[K" clears what a longer previous line left behind.
    std::fprintf(stderr, "\r[%s%s] %lld/%lld  %s  eta %s\033[K", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), static_cast<long long>(step),
                 static_cast<long long>(total), m_figures.c_str(),
                 durationText(perStep * static_cast<double>(total - step)).c_str());
    m_barShown = true;
    train::stopOnOutputError(stderr);
  }
  void onReport(const MetricsRecord& r, std::int64_t total) override {
    if (r.validLoss) m_valid = "  valid " + lossText(*r.validLoss, r.validBpc);
    if (r.cer) m_valid += "  cer " + std::to_string(*r.cer).substr(0, 5);  // the words task
    char rate[48];
    std::snprintf(rate, sizeof rate, "  %.0f frames/s", r.framesPerS);
    m_figures = "loss " + lossText(r.trainLoss, r.trainBpc) + m_valid + rate;
    if (m_terminal) return;
    std::fprintf(stderr, "step %lld/%lld  train_loss %s%s  grad_norm %.3g  lr %.3g%s\n",
                 static_cast<long long>(r.step), static_cast<long long>(total),
                 lossText(r.trainLoss, r.trainBpc).c_str(),
                 r.validLoss ? ("  valid_loss " + lossText(*r.validLoss, r.validBpc) +
                                (r.cer ? "  cer " + std::to_string(*r.cer).substr(0, 5) : ""))
                                   .c_str()
                             : "",
                 r.gradNorm, r.lr, rate);
    train::stopOnOutputError(stderr);
  }
  void onMessage(const std::string& message) override {
    endBar();
    std::fprintf(stderr, "rnnwb train: %s\n", message.c_str());
    train::stopOnOutputError(stderr);
  }

 private:
  void endBar() {
    if (m_barShown) std::fputc('\n', stderr);
    m_barShown = false;
  }

  bool m_terminal;
  bool m_barShown = false;
  std::string m_figures, m_valid;
  std::int64_t m_firstStep = -1;
  Clock::time_point m_start{}, m_lastDraw{};
};

struct TrainOptions {
  std::string graph, configFile, runDir;
  bool resume = false;
  train::TrainConfig config;
  std::string optimizer = "adam";
  bool noHalving = false;
};

/// Options that describe the run itself; with --resume they come from the folder's config.
const std::vector<std::string> kRunOptions = {"GRAPH",
                                              "--config",
                                              "--task",
                                              "--text",
                                              "--valid-fraction",
                                              "--sequence-length",
                                              "--length",
                                              "--delay",
                                              "--alphabet",
                                              "--valid-sequences",
                                              "--streams",
                                              "--h",
                                              "--h-prime",
                                              "--optimizer",
                                              "--momentum",
                                              "--clip",
                                              "--no-lr-halving",
                                              "--valid-every",
                                              "--checkpoint-every",
                                              "--report-every",
                                              "--keep-checkpoints",
                                              "--seed",
                                              "--backend",
                                              "--threads",
                                              "--model",
                                              "--images",
                                              "--synthetic-words",
                                              "--valid-words",
                                              "--word-list",
                                              "--min-font-size",
                                              "--max-font-size",
                                              "--batch",
                                              "--packer",
                                              "--algo"};

/// The words task's model config when none is given (relative to the working directory, as
/// in the examples of docs/training.md).
constexpr const char* kDefaultWordsModel = "examples/words-model.json";

void addWordsOptions(CLI::App* cmd, train::TaskConfig& t) {
  cmd->add_option("--model", t.model,
                  std::string("words: the model config (default ") + kDefaultWordsModel + ")");
  cmd->add_option("--images", t.images, "words: an IAM folder (default: synthetic words)");
  cmd->add_option("--synthetic-words", t.syntheticWords, "words: synthetic training words")
      ->capture_default_str();
  cmd->add_option("--valid-words", t.validWords, "words: examples held out for validation")
      ->capture_default_str();
  cmd->add_option("--word-list", t.wordList, "words: the synthetic words' list (wamerican)");
  cmd->add_option("--min-font-size", t.minFontSize, "words: smallest synthetic pixel size")
      ->capture_default_str();
  cmd->add_option("--max-font-size", t.maxFontSize, "words: largest synthetic pixel size")
      ->capture_default_str();
  cmd->add_option("--batch", t.batch, "words: examples per update")->capture_default_str();
  cmd->add_option("--packer", t.packer,
                  "words: baseline, shelf or none (batch padding); default: the model's");
}

void overrideWordsOptions(CLI::App* cmd, const train::TaskConfig& given, train::TaskConfig& t) {
  auto over = [&](const char* name, auto& field, const auto& value) {
    if (cmd->count(name)) field = value;
  };
  over("--model", t.model, given.model);
  over("--images", t.images, given.images);
  over("--synthetic-words", t.syntheticWords, given.syntheticWords);
  over("--valid-words", t.validWords, given.validWords);
  over("--word-list", t.wordList, given.wordList);
  over("--min-font-size", t.minFontSize, given.minFontSize);
  over("--max-font-size", t.maxFontSize, given.maxFontSize);
  over("--batch", t.batch, given.batch);
  over("--packer", t.packer, given.packer);
}

/// Runs a trainer (sequence or words) to its end, naming the last good checkpoint on NaN.
template <typename AnyTrainer>
int runToEnd(AnyTrainer& trainer, const std::string& runDir) {
  try {
    const train::TrainOutcome outcome = trainer.run();
    return outcome.finished ? 0 : 128 + outcome.stopSignal;  // as a shell reports a signal
  } catch (const train::NonFiniteError& e) {
    const auto kept = train::RunFolder(runDir).newestCheckpoint();
    throw std::runtime_error(std::string(e.what()) + "; training stopped. " +
                             (kept ? "The last good checkpoint is " + kept->string()
                                   : std::string("No checkpoint had been written yet.")));
  }
}

void addRunOptions(CLI::App* cmd, TrainOptions& o) {
  train::TrainConfig& c = o.config;
  cmd->add_option("GRAPH", o.graph, "Graph file (*.rnn.json); overrides the config's \"graph\"");
  cmd->add_option("--config", o.configFile,
                  "A JSON config (docs/training.md); options override it");
  cmd->add_option("--task", c.task.kind, "char-lm, adding, copy or words")->capture_default_str();
  cmd->add_option("--text", c.task.text, "char-lm: the UTF-8 text file");
  cmd->add_option("--valid-fraction", c.task.validFraction,
                  "char-lm: share of the text (at its end) kept for validation")
      ->capture_default_str();
  cmd->add_option("--sequence-length", c.task.sequenceLength, "adding: frames per sequence")
      ->capture_default_str();
  cmd->add_option("--length", c.task.length, "copy: symbols to remember")->capture_default_str();
  cmd->add_option("--delay", c.task.delay, "copy: frames from the last symbol to the delimiter")
      ->capture_default_str();
  cmd->add_option("--alphabet", c.task.alphabet, "copy: number of symbols")->capture_default_str();
  cmd->add_option("--valid-sequences", c.task.validSequences, "adding, copy: validation sequences")
      ->capture_default_str();
  cmd->add_option("--streams", c.streams, "N, the streams trained side by side")
      ->capture_default_str();
  cmd->add_option("--h", c.h, "Frames back-propagated per update (default 2 h')");
  cmd->add_option("--h-prime", c.hPrime, "h', new frames per update")->capture_default_str();
  cmd->add_option("--optimizer", o.optimizer, "sgd (with momentum) or adam")->capture_default_str();
  cmd->add_option("--lr", c.optimizer.learningRate, "Learning rate")->capture_default_str();
  cmd->add_option("--momentum", c.optimizer.momentum, "sgd: momentum")->capture_default_str();
  cmd->add_option("--clip", c.clipNorm, "Largest gradient norm (0: no clipping)")
      ->capture_default_str();
  cmd->add_flag("--no-lr-halving", o.noHalving,
                "Keep the learning rate when validation gets worse");
  cmd->add_option("--valid-every", c.validEvery, "Updates between validations")
      ->capture_default_str();
  cmd->add_option("--checkpoint-every", c.checkpointEvery, "Updates between checkpoints")
      ->capture_default_str();
  cmd->add_option("--report-every", c.reportEvery, "Updates between lines of metrics.jsonl")
      ->capture_default_str();
  cmd->add_option("--keep-checkpoints", c.keepCheckpoints, "Checkpoints kept")
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "Seed of the weights and generated data")
      ->capture_default_str();
  cmd->add_option("--backend", c.backend, "cpu, or cuda in a build with the CUDA backend")
      ->capture_default_str();
  cmd->add_option("--threads", c.threads,
                  "Threads: the engine's and BLAS's; RTRL/SnAp's streams (0: all cores)")
      ->capture_default_str();
  addWordsOptions(cmd, c.task);
  cmd->add_option("--algo", c.algo,
                  "bptt, rtrl (exact) or snap1, snap2, snap3... (SnAp-n): RTRL-family algorithms "
                  "update every h' frames, h = h' (docs/snap.md)")
      ->capture_default_str();
}

train::OptimizerKind optimizerKind(const std::string& name) {
  const auto kind = train::optimizerKindFromString(name);
  if (!kind) throw std::invalid_argument("unknown optimizer '" + name + "' (use sgd or adam)");
  return *kind;
}

/// The config: the --config file, then every option given on the command line over it.
train::TrainConfig resolveConfig(CLI::App* cmd, const TrainOptions& o) {
  if (o.configFile.empty()) {
    train::TrainConfig c = o.config;
    c.graph = o.graph;
    c.optimizer.kind = optimizerKind(o.optimizer);
    c.halveLrWhenWorse = !o.noHalving;
    if (c.task.kind == "words" && c.task.model.empty()) c.task.model = kDefaultWordsModel;
    if (c.graph.empty() && c.task.kind != "words")
      throw std::invalid_argument("give a GRAPH file (or --config FILE)");
    return c;
  }
  train::TrainConfig c = train::loadTrainConfig(o.configFile);
  const train::TrainConfig& given = o.config;
  auto over = [&](const char* name, auto& field, const auto& value) {
    if (cmd->count(name)) field = value;
  };
  if (!o.graph.empty()) c.graph = o.graph;
  over("--task", c.task.kind, given.task.kind);
  over("--text", c.task.text, given.task.text);
  over("--valid-fraction", c.task.validFraction, given.task.validFraction);
  over("--sequence-length", c.task.sequenceLength, given.task.sequenceLength);
  over("--length", c.task.length, given.task.length);
  over("--delay", c.task.delay, given.task.delay);
  over("--alphabet", c.task.alphabet, given.task.alphabet);
  over("--valid-sequences", c.task.validSequences, given.task.validSequences);
  over("--streams", c.streams, given.streams);
  over("--h", c.h, given.h);
  over("--h-prime", c.hPrime, given.hPrime);
  over("--lr", c.optimizer.learningRate, given.optimizer.learningRate);
  over("--momentum", c.optimizer.momentum, given.optimizer.momentum);
  over("--clip", c.clipNorm, given.clipNorm);
  over("--steps", c.steps, given.steps);
  over("--epochs", c.epochs, given.epochs);
  if (cmd->count("--steps") && !cmd->count("--epochs")) c.epochs = 0.0;
  if (cmd->count("--epochs") && !cmd->count("--steps")) c.steps = 0;
  over("--valid-every", c.validEvery, given.validEvery);
  over("--checkpoint-every", c.checkpointEvery, given.checkpointEvery);
  over("--report-every", c.reportEvery, given.reportEvery);
  over("--keep-checkpoints", c.keepCheckpoints, given.keepCheckpoints);
  over("--seed", c.seed, given.seed);
  over("--backend", c.backend, given.backend);
  over("--threads", c.threads, given.threads);
  over("--algo", c.algo, given.algo);
  if (cmd->count("--optimizer")) c.optimizer.kind = optimizerKind(o.optimizer);
  if (o.noHalving) c.halveLrWhenWorse = false;
  overrideWordsOptions(cmd, given.task, c.task);
  if (c.task.kind == "words" && c.task.model.empty()) c.task.model = kDefaultWordsModel;
  if (c.graph.empty() && c.task.kind != "words")
    throw std::invalid_argument(o.configFile + ": no \"graph\" and no GRAPH given");
  return c;
}

int runTrain(CLI::App* cmd, const TrainOptions& o) {
  if (o.runDir.empty()) throw std::invalid_argument("say where the run goes: --run-dir DIR");
  ProgressPrinter progress;
  const train::StopSignalGuard signals;
  const train::RunFolderLock lock(o.runDir);
  if (lock.takenOverFrom())
    progress.onMessage("taking over the run folder from " + *lock.takenOverFrom() +
                       ", which ended without releasing it");
  std::unique_ptr<train::Trainer> trainer;
  if (o.resume) {
    for (const std::string& name : kRunOptions)
      if (cmd->count(name))
        throw std::invalid_argument("--resume continues the run as " + o.runDir +
                                    "/config.json says; only --steps, --epochs or --lr may change "
                                    "(got " +
                                    name + ")");
    train::ResumeOverrides overrides;
    if (cmd->count("--steps")) overrides.steps = o.config.steps;
    if (cmd->count("--epochs")) overrides.epochs = o.config.epochs;
    if (cmd->count("--lr")) overrides.learningRate = o.config.optimizer.learningRate;
    if (train::holdsWordsRun(o.runDir))
      return runToEnd(*train::WordsTrainer::resume(o.runDir, overrides, &progress), o.runDir);
    trainer = train::Trainer::resume(o.runDir, overrides, &progress);
  } else {
    const train::TrainConfig config = resolveConfig(cmd, o);
    if (config.task.kind == "words")
      return runToEnd(*train::WordsTrainer::startNew(config, o.runDir, &progress), o.runDir);
    trainer = train::Trainer::startNew(config, o.runDir, &progress);
  }
  return runToEnd(*trainer, o.runDir);
}

}  // namespace

void registerTrain(CLI::App& app, int& exitCode) {
  auto options = std::make_shared<TrainOptions>();
  auto holder = std::make_shared<CLI::App*>(nullptr);
  CLI::App* cmd = addCommand(
      app, "train", "Train a graph by truncated BPTT(h; h') over N streams into a run folder",
      exitCode, [options, holder] { return runTrain(*holder, *options); });
  *holder = cmd;
  addRunOptions(cmd, *options);
  cmd->add_option("--steps", options->config.steps, "Updates to run");
  cmd->add_option("--epochs", options->config.epochs, "Passes over the training text (char-lm)");
  cmd->add_option("--run-dir", options->runDir, "The run folder (created; must not hold a run)");
  cmd->add_flag("--resume", options->resume,
                "Continue the run in --run-dir from its newest checkpoint");
}

}  // namespace rnnwb::cli
