#pragma once
// Everything that defines a training run, as `rnnwb train` options or as a JSON file
// (docs/training.md has the keys). A run folder keeps the resolved config (every default filled
// in, paths absolute), so that `--resume` and the workbench read back exactly what ran.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "rnnwb/core/train/optimizer.hpp"

namespace rnnwb::train {

inline constexpr std::string_view kTrainConfigFormat = "rnnwb.train-config";
inline constexpr int kTrainConfigVersion = 1;
/// The most threads a run may ask for (`threads`): far more than any machine this runs on has
/// cores, small enough that a typo (100000) is refused instead of starting that many threads.
inline constexpr int kMaxThreads = 256;
/// The words task's graph when none is given (relative to the working directory, as in the
/// examples of docs/training.md): the paper's smaller recogniser, made by `rnnwb new mdlstm`.
inline constexpr const char* kDefaultWordsGraph = "examples/mdlstm-words.rnn.json";

struct TaskConfig {
  std::string kind = "char-lm";  // "char-lm", "adding", "copy"
  std::string text;              // char-lm: the UTF-8 text file
  double validFraction = 0.05;   // char-lm: the share of the text kept for validation (the end)
  int sequenceLength = 100;      // adding: T, the frames of one sequence
  int length = 10;               // copy: L, the symbols to remember
  int delay = 20;                // copy: frames from the last symbol to the delimiter, inclusive
  int alphabet = 8;              // copy: K symbols
  int validSequences = 256;      // adding, copy: sequences in the validation set
  // words (docs/training.md, "The words task"): the recogniser's alphabet and its data.
  std::string wordAlphabet;   // one character per class after the blank; empty: a-z then A-Z
  std::string images;         // an IAM folder; empty: synthetic words
  int syntheticWords = 2000;  // synthetic: training words
  int validWords = 64;        // examples held out for validation (after the training ones)
  std::string wordList;       // synthetic: the word list; empty: wamerican's
  int minFontSize = 16;       // synthetic: pixel sizes drawn log-uniform in [min, max]
  int maxFontSize = 165;
  int batch = 16;      // examples per update
  std::string packer;  // baseline, shelf or none (batch padding); empty: shelf
  bool operator==(const TaskConfig&) const = default;
};

struct TrainConfig {
  std::string graph;  // the graph file
  TaskConfig task;
  int streams = 16;  // N
  int h = 0;         // frames back-propagated per update; 0 means 2 * hPrime
  int hPrime = 32;   // new frames per update
  OptimizerSettings optimizer;
  double clipNorm = 1.0;          // largest gradient norm; 0 turns clipping off
  bool halveLrWhenWorse = true;   // halve the rate (and reset the optimizer) when valid gets worse
  std::int64_t steps = 0;         // updates to run; 0: use epochs
  double epochs = 0.0;            // passes over the training text (char-lm only)
  std::int64_t validEvery = 500;  // updates between validations (0: only at the end)
  std::int64_t checkpointEvery = 1000;  // updates between checkpoints (0: only at the end)
  std::int64_t reportEvery = 10;        // updates between lines of metrics.jsonl
  int keepCheckpoints = 3;              // the newest checkpoints kept in the run folder
  std::uint64_t seed = 1;               // initialization and generated data
  std::string initWeights;  // safetensors of the starting weights; empty: drawn from the seed
  std::string backend = "cpu";
  int threads = 0;  // BLAS threads of the cpu backend; 0: OpenBLAS's choice (all cores)
  std::string precision =
      "f32";                  // the cpu backend's products: f32, or bf16 (product_precision.hpp)
  std::string algo = "bptt";  // bptt, rtrl or snapN (docs/snap.md): how gradients are computed
  int ranks = 1;           // processes of a data-parallel run: the launcher's (docs/distributed.md)
  std::string hostfile;    // the launcher's hostfile (mpirun --hostfile), a record; empty: local
  bool overlapSum = true;  // data-parallel: sum gradient buckets during the backward pass

  bool operator==(const TrainConfig&) const = default;
  /// h with its default applied (RTRL and SnAp update online every h' frames: h = h').
  int effectiveH() const { return h > 0 ? h : (algo == "bptt" ? 2 * hPrime : hPrime); }
};

/// The config as JSON, every setting of its task and optimizer written (the resolved form a run
/// folder keeps), in the order of the run spec (run_spec.hpp).
nlohmann::ordered_json toJson(const TrainConfig& config);
/// Reads a config through the run spec. Missing keys keep their defaults; unknown keys, wrong
/// types, numbers that are not exactly of the setting's type (2.7 streams, a seed of -1) and values
/// out of range throw std::invalid_argument naming the key and the value (prefixed with `source`).
/// Relative paths
/// ("graph", "task.text") are resolved against `baseDir` when it is not empty.
TrainConfig trainConfigFromJson(const nlohmann::json& json, const std::string& source,
                                const std::filesystem::path& baseDir = {});
/// Reads a config file (relative paths resolve against its folder).
TrainConfig loadTrainConfig(const std::filesystem::path& path);

/// Throws std::invalid_argument with a message that names the option for any value out of range
/// or any combination that cannot run (h < h', neither steps nor epochs, epochs on a task whose
/// data never ends, an unknown task or backend, a char-lm task without a text).
void validateTrainConfig(const TrainConfig& config);

std::optional<OptimizerKind> optimizerKindFromString(std::string_view text);

}  // namespace rnnwb::train
