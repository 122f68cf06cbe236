// The table of every training setting (run_spec.hpp). A row binds a config key and a flag to a
// TrainConfig field; its type and range are checked wherever a value comes from (config file,
// command line, form). Rows are in the order of a config file.
#include <limits>

#include "rnnwb/core/train/run_spec.hpp"

// Rows name only the fields that differ from a Setting's defaults (designated initializers);
// GCC's -Wextra would list every other field of every row.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace rnnwb::train {
namespace {

using nlohmann::json;
using T = SettingType;

/// Binds a row to the field `access` returns (a generic lambda, for const and non-const configs).
template <typename Access>
Setting bind(Setting s, Access access) {
  s.get = [access](const TrainConfig& c) { return json(access(c)); };
  s.set = [access](TrainConfig& c, const json& v) {
    auto& field = access(c);
    field = v.get<std::remove_reference_t<decltype(field)>>();
  };
  return s;
}

#define FIELD(expr) \
  [](auto& c) -> auto& { return c.expr; }

constexpr std::int64_t kMillion = 1'000'000;
constexpr std::int64_t kManySteps = 1'000'000'000'000;  // far beyond any run, far from overflow

bool withImages(const TrainConfig& c) { return !c.task.images.empty(); }
bool synthetic(const TrainConfig& c) { return c.task.images.empty(); }

Setting optimizerKind() {
  Setting s{.key = "optimizer.kind",
            .flag = "--optimizer",
            .type = T::Choice,
            .help = "sgd (with momentum) or adam",
            .choices = {"sgd", "adam"},
            .noun = "optimizer"};
  s.get = [](const TrainConfig& c) { return json(std::string(toString(c.optimizer.kind))); };
  s.set = [](TrainConfig& c, const json& v) {
    c.optimizer.kind = *optimizerKindFromString(v.get<std::string>());
  };
  return s;
}

Setting frameWindow() {  // h: 0 means the algorithm's default, and the resolved config says it
  Setting s{.key = "h",
            .flag = "--h",
            .type = T::Integer,
            .help = "frames back-propagated per update (h >= h')",
            .tasks = kSequenceTasks,
            .max = kMillion,
            .defaultText = "2 h' (bptt), h' (rtrl, snapN)"};
  s.get = [](const TrainConfig& c) { return json(c.h); };
  s.resolved = [](const TrainConfig& c) { return json(c.effectiveH()); };
  s.set = [](TrainConfig& c, const json& v) { c.h = v.get<int>(); };
  return s;
}

std::vector<Setting> taskRows() {
  return {
      bind({.key = "task.kind",
            .flag = "--task",
            .help = "the task: char-lm, adding, copy or words",
            .choices = {"char-lm", "adding", "copy", "words"}},
           FIELD(task.kind)),
      bind({.key = "task.text",
            .flag = "--text",
            .type = T::Path,
            .help = "char-lm: any UTF-8 text file",
            .tasks = kCharLm},
           FIELD(task.text)),
      bind({.key = "task.valid_fraction",
            .flag = "--valid-fraction",
            .type = T::Real,
            .help = "char-lm: the share at the end of the text kept for validation",
            .tasks = kCharLm,
            .realMax = 0.5},
           FIELD(task.validFraction)),
      bind({.key = "task.sequence_length",
            .flag = "--sequence-length",
            .type = T::Integer,
            .help = "adding: frames per sequence (T)",
            .tasks = kAdding,
            .min = 2,
            .max = kMillion},
           FIELD(task.sequenceLength)),
      bind({.key = "task.length",
            .flag = "--length",
            .type = T::Integer,
            .help = "copy: symbols to remember (L)",
            .tasks = kCopy,
            .min = 1,
            .max = kMillion},
           FIELD(task.length)),
      bind({.key = "task.delay",
            .flag = "--delay",
            .type = T::Integer,
            .help = "copy: frames from the last symbol to the delimiter, inclusive",
            .tasks = kCopy,
            .min = 1,
            .max = kMillion},
           FIELD(task.delay)),
      bind({.key = "task.alphabet",
            .flag = "--alphabet",
            .type = T::Integer,
            .help = "copy: number of symbols (K)",
            .tasks = kCopy,
            .min = 1,
            .max = 65536},
           FIELD(task.alphabet)),
      bind({.key = "task.valid_sequences",
            .flag = "--valid-sequences",
            .type = T::Integer,
            .help = "adding, copy: sequences in the validation set",
            .tasks = kAdding | kCopy,
            .min = 1,
            .max = kMillion},
           FIELD(task.validSequences)),
  };
}

std::vector<Setting> wordsRows() {
  std::vector<Setting> rows = {
      bind({.key = "task.word_alphabet",
            .flag = "--word-alphabet",
            .help = "words: the characters of the output's classes 1, 2, ... (class 0: the blank)",
            .tasks = kWords,
            .defaultText = "a-z then A-Z, as many as the graph's output has classes"},
           FIELD(task.wordAlphabet)),
      bind({.key = "task.images",
            .flag = "--images",
            .type = T::Path,
            .help = "words: an IAM folder (words.txt or lines.txt); without it, synthetic words",
            .tasks = kWords},
           FIELD(task.images)),
      bind({.key = "task.synthetic_words",
            .flag = "--synthetic-words",
            .type = T::Integer,
            .help = "words: synthetic training words (rendered from the seed)",
            .tasks = kWords,
            .min = 1,
            .max = 100 * kMillion},
           FIELD(task.syntheticWords)),
      bind(
          {.key = "task.word_list",
           .flag = "--word-list",
           .type = T::Path,
           .help =
               "words: the synthetic words' list (letters only, up to 14); of the default one, the "
               "words in the graph's alphabet",
           .tasks = kWords,
           .defaultText = "wamerican"},
          FIELD(task.wordList)),
      bind({.key = "task.min_font_size",
            .flag = "--min-font-size",
            .type = T::Integer,
            .help = "words: smallest synthetic pixel size (drawn log-uniform)",
            .tasks = kWords,
            .min = 4,
            .max = 4096},
           FIELD(task.minFontSize)),
      bind({.key = "task.max_font_size",
            .flag = "--max-font-size",
            .type = T::Integer,
            .help = "words: largest synthetic pixel size",
            .tasks = kWords,
            .min = 4,
            .max = 4096},
           FIELD(task.maxFontSize)),
      bind({.key = "task.valid_words",
            .flag = "--valid-words",
            .type = T::Integer,
            .help = "words: examples held out for validation (the last ones of the source)",
            .tasks = kWords,
            .max = 100 * kMillion},
           FIELD(task.validWords)),
      bind({.key = "task.batch",
            .flag = "--batch",
            .type = T::Integer,
            .help = "words: examples per update",
            .tasks = kWords,
            .min = 1,
            .max = 65536},
           FIELD(task.batch)),
      bind({.key = "task.packer",
            .flag = "--packer",
            .help = "words: baseline, shelf or none (batch padding)",
            .tasks = kWords,
            .choices = {"baseline", "shelf", "none"},
            .defaultText = "shelf"},
           FIELD(task.packer)),
  };
  rows[1].writtenWhen = withImages;
  for (int i : {2, 3, 4, 5}) rows[static_cast<std::size_t>(i)].writtenWhen = synthetic;
  return rows;
}

std::vector<Setting> shapeRows() {
  return {
      bind({.key = "streams",
            .flag = "--streams",
            .type = T::Integer,
            .help = "N, the streams trained side by side",
            .tasks = kSequenceTasks,
            .min = 1,
            .max = 65536},
           FIELD(streams)),
      frameWindow(),
      bind({.key = "h_prime",
            .flag = "--h-prime",
            .type = T::Integer,
            .help = "new frames per update",
            .tasks = kSequenceTasks,
            .min = 1,
            .max = kMillion},
           FIELD(hPrime)),
      bind({.key = "steps",
            .flag = "--steps",
            .type = T::Integer,
            .help = "updates to run (or epochs)",
            .resumeMayChange = true,
            .max = kManySteps,
            .replaces = "epochs"},
           FIELD(steps)),
      bind({.key = "epochs",
            .flag = "--epochs",
            .type = T::Real,
            .help = "passes over the training data (char-lm, words; or steps)",
            .resumeMayChange = true,
            .realMax = 1e6,
            .replaces = "steps"},
           FIELD(epochs)),
  };
}

std::vector<Setting> optimizerRows() {
  return {
      optimizerKind(),
      bind({.key = "optimizer.learning_rate",
            .flag = "--lr",
            .type = T::Real,
            .help = "learning rate",
            .resumeMayChange = true},
           FIELD(optimizer.learningRate)),
      bind({.key = "optimizer.momentum",
            .flag = "--momentum",
            .type = T::Real,
            .help = "sgd: momentum, in [0, 1)",
            .optimizer = "sgd"},
           FIELD(optimizer.momentum)),
      bind({.key = "optimizer.beta1", .type = T::Real, .help = "adam: beta1", .optimizer = "adam"},
           FIELD(optimizer.beta1)),
      bind({.key = "optimizer.beta2", .type = T::Real, .help = "adam: beta2", .optimizer = "adam"},
           FIELD(optimizer.beta2)),
      bind({.key = "optimizer.epsilon",
            .type = T::Real,
            .help = "adam: epsilon",
            .optimizer = "adam"},
           FIELD(optimizer.epsilon)),
  };
}

std::vector<Setting> runRows() {
  return {
      bind({.key = "clip_norm",
            .flag = "--clip",
            .type = T::Real,
            .help = "largest gradient norm; 0 turns clipping off",
            .realMax = 1e30},
           FIELD(clipNorm)),
      bind({.key = "halve_lr_when_worse",
            .flag = "--no-lr-halving",
            .type = T::Flag,
            .help = "halve the rate (and reset the optimizer) when validation gets worse; "
                    "--no-lr-halving keeps it",
            .flagNegates = true},
           FIELD(halveLrWhenWorse)),
      bind({.key = "valid_every",
            .flag = "--valid-every",
            .type = T::Integer,
            .help = "updates between validations (0: only at the end)",
            .max = kManySteps},
           FIELD(validEvery)),
      bind({.key = "checkpoint_every",
            .flag = "--checkpoint-every",
            .type = T::Integer,
            .help = "updates between checkpoints (0: only at the end)",
            .max = kManySteps},
           FIELD(checkpointEvery)),
      bind({.key = "report_every",
            .flag = "--report-every",
            .type = T::Integer,
            .help = "updates between lines of metrics.jsonl",
            .min = 1,
            .max = kManySteps},
           FIELD(reportEvery)),
      bind({.key = "keep_checkpoints",
            .flag = "--keep-checkpoints",
            .type = T::Integer,
            .help = "newest checkpoints kept",
            .min = 1,
            .max = kMillion},
           FIELD(keepCheckpoints)),
      bind({.key = "seed",
            .flag = "--seed",
            .type = T::Unsigned,
            .help = "seed of the initial weights and the generated data"},
           FIELD(seed)),
      bind({.key = "init_weights",
            .flag = "--init-weights",
            .type = T::Path,
            .help = "safetensors file of the weights to start from (rnnwb init, rnnwb import, "
                    "a run's weights); empty: drawn from the seed",
            .writtenWhen = [](const TrainConfig& c) { return !c.initWeights.empty(); }},
           FIELD(initWeights)),
      bind({.key = "backend",
            .flag = "--backend",
            .help = "cpu, or cuda in a build with the CUDA backend",
            .choices = {"cpu", "cuda"}},
           FIELD(backend)),
      bind({.key = "threads",
            .flag = "--threads",
            .type = T::Integer,
            .help = "threads of the engine and BLAS, and RTRL/SnAp's streams (0: all cores)",
            .max = kMaxThreads},
           FIELD(threads)),
      // Written only when not f32, so that the runs made before it resume (their checkpoints'
      // records of the config have no precision).
      bind({.key = "precision",
            .flag = "--precision",
            .help = "f32, or bf16: the CPU engine's products on bf16 inputs with f32 sums, where "
                    "the processor has AVX-512 BF16 or AMX (weights, optimizer and element-wise "
                    "maths stay f32)",
            .choices = {"f32", "bf16"},
            .writtenWhen = [](const TrainConfig& c) { return c.precision != "f32"; }},
           FIELD(precision)),
      // A record, not a choice: rnnwb train writes the number of ranks its launcher started
      // (mpirun -np R), on a new run and on every resume.
      bind({.key = "ranks",
            .type = T::Integer,
            .help = "processes of a data-parallel run, as launched (mpirun -np R; "
                    "docs/distributed.md)",
            .min = 1,
            .max = 65536},
           FIELD(ranks)),
      // A record of how the workbench launched the ranks; rnnwb train itself never reads it.
      bind({.key = "hostfile",
            .type = T::Path,
            .help = "Open MPI hostfile of a data-parallel run over several machines (the "
                    "workbench runs mpirun --hostfile with it); empty: this machine",
            .writtenWhen = [](const TrainConfig& c) { return !c.hostfile.empty(); }},
           FIELD(hostfile)),
      bind({.key = "overlap_sum",
            .flag = "--no-overlap",
            .type = T::Flag,
            .help = "data-parallel: start summing each bucket of the gradient over the ranks "
                    "while the backward pass goes on; --no-overlap sums after it (the same "
                    "floats; for measuring)",
            .flagNegates = true,
            .writtenWhen = [](const TrainConfig& c) { return !c.overlapSum; }},
           FIELD(overlapSum)),
      bind({.key = "algo",
            .flag = "--algo",
            .help = "bptt, rtrl (exact) or snap1, snap2, snap3... (SnAp-n): RTRL-family "
                    "algorithms update every h' frames, h = h' (docs/snap.md)",
            .tasks = kSequenceTasks,
            .choices = {"bptt", "rtrl", "snap1", "snap2", "snap3"}},
           FIELD(algo)),
  };
}

std::vector<Setting> makeRunSpec() {
  std::vector<Setting> rows = {bind({.key = "graph",
                                     .flag = "GRAPH",
                                     .type = T::Path,
                                     .help = "the graph file (*.rnn.json)",
                                     .tasks = kAllTasks,
                                     .defaultText = "words: examples/mdlstm-words.rnn.json"},
                                    FIELD(graph))};
  for (auto part : {taskRows(), wordsRows(), shapeRows(), optimizerRows(), runRows()})
    rows.insert(rows.end(), part.begin(), part.end());
  return rows;
}

#undef FIELD

}  // namespace

const std::vector<Setting>& runSpec() {
  static const std::vector<Setting> table = makeRunSpec();
  return table;
}

}  // namespace rnnwb::train
