#pragma once
// The two classic long-memory problems, generated without end from the seed. Each stream is a
// concatenation of independent sequences of one fixed length; the network's state is not reset
// between them (it must learn where a sequence starts from its input, which marks it).
#include <cstdint>

#include "rnnwb/core/train/task.hpp"

namespace rnnwb::train {

/// The adding problem (Hochreiter & Schmidhuber 1997, in the form of Le et al. 2015): each frame
/// has two inputs, a value uniform in [0, 1) and a marker; exactly two frames of a sequence of
/// length T are marked, one in each half. At the last frame of the sequence the target (mse, one
/// output) is the sum of the two marked values; no other frame has a target. Predicting 1 always
/// gives a loss of 1/12 per predicted frame (half the variance 1/6 of the sum).
class AddingTask final : public Task {
 public:
  /// sequenceLength >= 2; validationSequences >= 1 (rounded up to a multiple of N).
  AddingTask(int sequenceLength, int validationSequences, std::uint64_t seed, StreamShape shape);

  std::string name() const override { return "adding"; }
  int inputSize() const override { return 2; }
  int outputSize() const override { return 1; }
  TargetKind targetKind() const override { return TargetKind::Value; }
  std::int64_t framesPerEpoch() const override { return 0; }
  TaskChunk trainingFrames(std::int64_t begin, int frames) const override;
  std::int64_t validationLength() const override;
  TaskChunk validationFrames(std::int64_t begin, int frames) const override;

 private:
  TaskChunk chunkOf(std::uint64_t purpose, std::int64_t begin, int frames) const;

  int m_length;
  int m_validSequencesPerStream;
  std::uint64_t m_seed;
};

/// The copy task (Hochreiter & Schmidhuber 1997, in the form of Arjovsky et al. 2016): L symbols
/// drawn from an alphabet of K, then `delay` - 1 blanks, a delimiter and L blanks; the target is
/// blank until the delimiter has been read, then the L symbols in order. Inputs are one-hot over
/// K + 2 classes (0 blank, 1..K symbols, K + 1 delimiter); outputs over K + 1 (blank, symbols).
/// A network that remembers nothing reaches L log K / (2L + delay) nats per frame.
class CopyTask final : public Task {
 public:
  /// length >= 1, delay >= 1, alphabet >= 2, validationSequences >= 1.
  CopyTask(int length, int delay, int alphabet, int validationSequences, std::uint64_t seed,
           StreamShape shape);

  std::string name() const override { return "copy"; }
  int inputSize() const override { return m_alphabet + 2; }
  int outputSize() const override { return m_alphabet + 1; }
  TargetKind targetKind() const override { return TargetKind::Class; }
  std::int64_t framesPerEpoch() const override { return 0; }
  TaskChunk trainingFrames(std::int64_t begin, int frames) const override;
  std::int64_t validationLength() const override;
  TaskChunk validationFrames(std::int64_t begin, int frames) const override;
  /// The loss per frame of the best network without memory (predicts blanks, then guesses).
  double memorylessLoss() const;

 private:
  TaskChunk chunkOf(std::uint64_t purpose, std::int64_t begin, int frames) const;
  int sequenceLength() const { return 2 * m_length + m_delay; }

  int m_length, m_delay, m_alphabet;
  int m_validSequencesPerStream;
  std::uint64_t m_seed;
};

}  // namespace rnnwb::train
