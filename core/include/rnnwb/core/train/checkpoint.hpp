#pragma once
// A training checkpoint: one safetensors file that holds everything a run needs to continue
// exactly where it stopped.
//
//   connections.<id>.weight, layers.<id>.bias, connections.<id>.mask   the weights (so that a
//                                        checkpoint is also a weights file for `rnnwb grad`)
//   optimizer.<buffer>.<weight key>      the optimizer's buffers (velocity; m and v), same shapes
//   streams.<layer id>                   each stream's carried frames, F32 [frames, N, size]
//   rtrl.*                               what an RTRL / SnAp backend carries (Ĵ, RtrlBackend)
//   __metadata__                         step, data cursor, learning-rate schedule, the sums of the
//                                        report interval in progress, wall time (doubles in C99
//                                        hexadecimal, so that they read back bit for bit)
//
// The data of every task depends only on the seed and the cursor, so the cursor is the whole
// random state of a run. Files are written to a temporary file and renamed.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/engine/stream_state.hpp"
#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/train/optimizer.hpp"

namespace rnnwb::train {

/// The sums of the report interval in progress (metrics are means over it).
struct ReportInterval {
  double lossSum = 0.0;              // summed loss of its updates
  std::int64_t predictedFrames = 0;  // frames that loss is summed over
  double gradNormSum = 0.0;          // gradient norms before clipping, summed
  std::int64_t updates = 0;
  bool operator==(const ReportInterval&) const = default;
};

/// Where the loop is, besides weights, optimizer and streams.
struct TrainingPosition {
  std::int64_t step = 0;     // updates done
  std::int64_t cursor = 0;   // training frames handed out per stream (all epochs)
  double wallSeconds = 0.0;  // training time over every session of the run
  double learningRate = 0.0;
  std::optional<double> previousValidLoss;
  int halvings = 0;
  ReportInterval interval;
  // The config the position was reached under, as resumeFingerprint writes it, so that --resume
  // finds a config.json edited since; empty in checkpoints written before it was kept.
  std::string config;
  // The report of `step` is owed (a stop came inside it): 1, or 2 with its validation. The
  // resumed run writes it first, so that it reports what an uninterrupted run reports.
  int owedReport = 0;
  bool operator==(const TrainingPosition&) const = default;
};

struct Checkpoint {
  ParameterSet parameters;
  OptimizerState optimizer;
  StreamState streams;
  TrainingPosition position;
  TensorMap backendState = {};  // "rtrl.*" tensors; empty for BPTT
};

/// The metadata of a checkpoint that says where the loop is (step, cursor, schedule, interval,
/// wall time; doubles in C99 hexadecimal) and which optimizer buffers it holds. Shared by every
/// trainer that writes checkpoints (the sequence trainer and the words task).
std::map<std::string, std::string> checkpointMetadata(const TrainingPosition& position,
                                                      const OptimizerState& optimizer);
/// Reads back what checkpointMetadata wrote: the position, and the optimizer's update count with
/// its buffer names checked against `optimizer` (their values are left to the caller). Throws
/// std::runtime_error naming the file when it is not a checkpoint or holds another optimizer.
TrainingPosition readCheckpointPosition(const TensorFile& file, OptimizerKind optimizer,
                                        std::vector<std::string>& bufferNames,
                                        std::int64_t& optimizerUpdates);

/// Writes atomically; throws std::runtime_error naming the file on failure.
void saveCheckpoint(const std::filesystem::path& path, const CompiledPlan& plan,
                    const Checkpoint& checkpoint);
/// Reads a checkpoint for this plan, N streams and optimizer; throws std::runtime_error naming
/// the file and what is missing or does not fit (another graph, another optimizer, another N).
Checkpoint loadCheckpoint(const std::filesystem::path& path, const CompiledPlan& plan, int streams,
                          OptimizerKind optimizer);

}  // namespace rnnwb::train
