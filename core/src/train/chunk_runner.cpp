#include "chunk_runner.hpp"

#include <algorithm>

#include "rnnwb/core/check.hpp"
#include "rnnwb/core/train/stop_signal.hpp"

namespace rnnwb::train {
namespace {

/// Replaces the targets of the frames without one by `outputs` (F32 [T, N, size]).
void targetOwnOutput(const TaskChunk& chunk, const Tensor& outputs, SequenceBatch& batch) {
  WB_CHECK(chunk.classTargets.empty(), "a target mask needs mse targets");
  std::span<float> targets = batch.targets.front().f32();
  std::span<const float> y = outputs.f32();
  const std::size_t size = static_cast<std::size_t>(chunk.outputSize);
  for (std::size_t cell = 0; cell < chunk.targetMask.size(); ++cell)
    if (chunk.targetMask[cell] == 0.0f)
      std::copy_n(y.begin() + cell * size, size, targets.begin() + cell * size);
}

std::int64_t predictedFrom(const TaskChunk& chunk, int firstFrame) {
  const std::int64_t cells = static_cast<std::int64_t>(chunk.frames - firstFrame) * chunk.streams;
  if (chunk.targetMask.empty()) return cells;
  std::int64_t count = 0;
  for (std::size_t i = static_cast<std::size_t>(firstFrame) * chunk.streams;
       i < chunk.targetMask.size(); ++i)
    count += chunk.targetMask[i] != 0.0f;
  return count;
}

/// ½‖y − target‖² over the frames with a target, for mse chunks with a mask.
double maskedMse(const TaskChunk& chunk, const Tensor& outputs) {
  std::span<const float> y = outputs.f32();
  const std::size_t size = static_cast<std::size_t>(chunk.outputSize);
  double sum = 0.0;
  for (std::size_t cell = 0; cell < chunk.targetMask.size(); ++cell) {
    if (chunk.targetMask[cell] == 0.0f) continue;
    for (std::size_t k = 0; k < size; ++k) {
      const double d =
          static_cast<double>(y[cell * size + k]) - chunk.valueTargets[cell * size + k];
      sum += 0.5 * d * d;
    }
  }
  return sum;
}

}  // namespace

TruncationWindow truncationWindow(std::int64_t position, int h, int hPrime) {
  const std::int64_t history = h - hPrime;
  TruncationWindow w;
  w.begin = std::max<std::int64_t>(0, position - history);
  w.frames = static_cast<int>(position + hPrime - w.begin);
  w.firstPredicted = static_cast<int>(position - w.begin);
  const std::int64_t nextBegin = std::max<std::int64_t>(0, position + hPrime - history);
  w.carry = static_cast<int>(nextBegin - w.begin);
  return w;
}

SequenceBatch toBatch(const TaskChunk& chunk) {
  SequenceBatch b;
  b.frames = chunk.frames;
  b.streams = chunk.streams;
  const std::int64_t t = chunk.frames, n = chunk.streams;
  b.inputs.push_back(Tensor::fromF32({t, n, chunk.inputSize}, chunk.input));
  if (!chunk.classTargets.empty())
    b.targets.push_back(Tensor::fromI64({t, n}, chunk.classTargets));
  else
    b.targets.push_back(Tensor::fromF32({t, n, chunk.outputSize}, chunk.valueTargets));
  return b;
}

ChunkLoss forwardBackwardWindow(Backend& backend, const ParameterSet& params,
                                const TaskChunk& chunk, const TruncationWindow& window,
                                StreamState& state, ParameterSet& gradients) {
  SequenceBatch batch = toBatch(chunk);
  batch.firstPredictedFrame = window.firstPredicted;
  if (!chunk.targetMask.empty()) {
    SequenceBatch inputsOnly = batch;
    inputsOnly.targets.clear();
    std::vector<Tensor> outputs;
    backend.forward(params, inputsOnly, state, nullptr, &outputs);
    targetOwnOutput(chunk, outputs.front(), batch);
  }
  ChunkLoss loss;
  loss.predicted = predictedFrom(chunk, window.firstPredicted);
  if (window.carry > 0) {
    batch.carryFrames = window.carry;
    loss.summed = backend.forwardBackward(params, batch, state, &state, &gradients);
  } else {
    loss.summed = backend.forwardBackward(params, batch, state, nullptr, &gradients);
    state = StreamState();
  }
  return loss;
}

ChunkLoss evaluateValidation(Backend& backend, const ParameterSet& params, const Task& task,
                             int frames, const StopAgreement& agree) {
  ChunkLoss total;
  StreamState state;
  const std::int64_t length = task.validationLength();
  // A huge validation set must not outlast a Ctrl-C. Every rank has the same chunks (its share
  // of the streams over the same frames), so the collective checks line up.
  const StopCheck checkStop("validation", validationGrace(), agree);
  for (std::int64_t begin = 0; begin < length; begin += frames) {
    checkStop();
    const TaskChunk chunk = task.validationFrames(
        begin, static_cast<int>(std::min<std::int64_t>(frames, length - begin)));
    SequenceBatch batch = toBatch(chunk);
    total.predicted += chunk.predictedFrames();
    if (chunk.targetMask.empty()) {
      total.summed += backend.forward(params, batch, state, &state);
      continue;
    }
    batch.targets.clear();
    std::vector<Tensor> outputs;
    backend.forward(params, batch, state, &state, &outputs);
    total.summed += maskedMse(chunk, outputs.front());
  }
  return total;
}

}  // namespace rnnwb::train
