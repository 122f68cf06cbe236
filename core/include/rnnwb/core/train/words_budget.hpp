#pragma once
// The memory of a words run (`rnnwb train GRAPH --task words`, docs/training.md) before it is
// trained: what `rnnwb budget` prints for a 2-D graph and the workbench's Memory budget dock
// shows. Bytes, float32 everywhere:
// - shared: the parameters, their gradient and the optimizer's state (as for a 1-D run);
// - data: the word images the run holds (training and validation, one byte per pixel);
// - batch: one update's examples as the engine takes them (the ink, 4 bytes a pixel, and the
//   labels);
// - engine: what the grid engine holds for that batch (grid_memory.hpp).
// Batches differ in size, so two are counted: the largest batch of the first epoch (what the
// run meets, epoch after epoch, within a few per cent), and the worst case, the `batch` largest
// words together (what no epoch exceeds). A run fits when its worst case does.
//
// The data is read (or rendered) to know the words' sizes, and the graph's parameters are made;
// no engine buffer is allocated unless the time of an update is measured, and then only when
// the worst case fits the budget and this machine's memory.
#include <cstdint>
#include <stop_token>
#include <string>
#include <vector>

#include "rnnwb/core/engine/grid_memory.hpp"
#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/train/train_config.hpp"

namespace rnnwb::train {

struct WordsBatchMemory {
  int words = 0;                  // examples in the batch
  std::int64_t positions = 0;     // their input pixels, summed
  std::uint64_t tensorBytes = 0;  // the ink and the labels
  GridMemory engine;
  std::uint64_t total() const { return tensorBytes + engine.total(); }
};

struct WordsBudget {
  std::string source;  // "2000 synthetic words (seed 1)", "IAM folder ..."
  std::string packer;  // the engine's: shelf, baseline or padded
  int batch = 0;
  int trainWords = 0, validWords = 0;
  std::int64_t stepsPerEpoch = 0;
  std::int64_t parameters = 0;
  std::uint64_t sharedBytes = 0;  // parameters, gradient, optimizer state
  std::string sharedText;         // "N parameters, their gradient and Adam's two moments"
  std::uint64_t dataBytes = 0;
  WordsBatchMemory largestOfFirstEpoch, worstCase;
  std::uint64_t budgetBytes = 0;
  /// Measured on the first updates of the run (0 when not measured): seconds per update, and
  /// what the engine held then.
  double secondsPerUpdate = 0;
  int timedUpdates = 0;
  std::vector<std::string> notes;  // what was not measured, and why

  std::uint64_t typicalTotal() const;  // shared + data + the largest batch of the first epoch
  std::uint64_t worstTotal() const;    // shared + data + the worst case
  bool fits() const { return worstTotal() <= budgetBytes; }
};

struct WordsBudgetOptions {
  std::uint64_t budgetBytes = 0;  // 0: this machine's memory
  int timedUpdates = 2;           // updates run to measure the time of one (0: none)
  std::stop_token stop;  // once requested, no further word is drawn (packing::LoadCancelled
                         // is thrown) and no further update timed
};

/// The budget of a words run of `config` (its graph, task, optimizer and seed); of `graph` when
/// it is given (an edited document's), config.graph then naming it. Throws what the run would
/// throw before training: a graph that does not fit the words task, a missing IAM folder, too
/// few words.
WordsBudget estimateWordsBudget(const TrainConfig& config, const WordsBudgetOptions& options = {},
                                const Graph* graph = nullptr);

}  // namespace rnnwb::train
