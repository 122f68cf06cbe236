#pragma once
// Private to the trainer: one chunk of task data through a Backend, for an update (BPTT(h; h'))
// or for validation.
#include <cstdint>
#include <vector>

#include "rnnwb/core/engine/backend.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/task.hpp"

namespace rnnwb::train {

/// The frames one update runs, for the update whose new frames are [position, position + h') of
/// an epoch: it starts up to h - h' frames earlier (fewer at the start of an epoch), counts the
/// loss of the new frames only, and carries the state from right before the next update's
/// first frame (carry = 0: the next update starts at frame 0 again, from an empty state).
struct TruncationWindow {
  std::int64_t begin = 0;
  int frames = 0;
  int firstPredicted = 0;
  int carry = 0;
};
TruncationWindow truncationWindow(std::int64_t position, int h, int hPrime);

/// The engine's batch for a task chunk (one input layer, one output layer).
SequenceBatch toBatch(const TaskChunk& chunk);

struct ChunkLoss {
  double summed = 0.0;         // summed loss over the predicted frames
  std::int64_t predicted = 0;  // frames the loss covers
};

/// Forward and backward of one window. `state` is the state before the window's first frame and
/// becomes the one before the next window's (empty when window.carry is 0). `gradients` receives
/// d(summed loss)/d(params).
///
/// Frames without a target (TaskChunk::targetMask, mse only) get the network's own output as
/// their target, from a forward pass before: their loss and gradient are then exactly 0, which
/// is what a masked loss gives (the Backend has no per-frame mask; it costs one more forward).
ChunkLoss forwardBackwardWindow(Backend& backend, const ParameterSet& params,
                                const TaskChunk& chunk, const TruncationWindow& window,
                                StreamState& state, ParameterSet& gradients);

/// The validation loss: the task's validation set in chunks of `frames` frames, in order from an
/// empty state, forward only. A stop request ends it (StopRequested) after a grace of 5 s; in a
/// data-parallel run `agree` makes that stop the same chunk's on every rank (StopCheck).
ChunkLoss evaluateValidation(Backend& backend, const ParameterSet& params, const Task& task,
                             int frames, const StopAgreement& agree = {});

}  // namespace rnnwb::train
