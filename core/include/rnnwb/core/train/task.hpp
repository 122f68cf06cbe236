#pragma once
// A training task: where the frames of every stream come from. A task hands out chunks of
// consecutive frames for N streams; stream s of the next chunk continues stream s of the one
// before, so an engine that carries each stream's state across chunks sees one long sequence per
// stream (truncated BPTT). Every task is deterministic: the data of a chunk depends only on the
// task's options, the seed and the cursor (the number of frames handed out so far).
#include <cstdint>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"

namespace rnnwb::train {

enum class TargetKind { Class, Value };  // cross_entropy (class indices), mse (vectors)

/// Frames [frames, streams, ...] in row-major order (frame, then stream, then feature), the
/// layout of the spec's data files.
struct TaskChunk {
  int frames = 0;
  int streams = 0;
  int inputSize = 0;
  int outputSize = 0;
  std::vector<float> input;                // [frames, streams, inputSize]
  std::vector<std::int64_t> classTargets;  // [frames, streams]; TargetKind::Class only
  std::vector<float> valueTargets;         // [frames, streams, outputSize]; TargetKind::Value only
  /// [frames, streams]: 1 where the frame has a target and its loss counts, 0 where it has none
  /// (the adding problem asks only at the end of each sequence). Empty: every frame counts.
  std::vector<float> targetMask;

  /// Frames whose loss counts: frames*streams when targetMask is empty.
  std::int64_t predictedFrames() const;
};

/// How every chunk of training data is cut: N streams of h' new frames each.
struct StreamShape {
  int streams = 1;
  int chunkFrames = 1;  // h'
};

class Task {
 public:
  explicit Task(StreamShape shape);
  virtual ~Task() = default;
  const StreamShape& shape() const { return m_shape; }
  virtual std::string name() const = 0;  // "char-lm", "adding", "copy"
  virtual int inputSize() const = 0;
  virtual int outputSize() const = 0;
  virtual TargetKind targetKind() const = 0;
  /// True for the language model: metrics then also report bits per character.
  virtual bool reportsBitsPerCharacter() const { return false; }

  /// Throws std::invalid_argument when the graph cannot run this task: it must have one input
  /// layer of inputSize() units and one output layer of outputSize() units with the loss that
  /// targetKind() needs. The message says which size or loss is needed.
  void checkGraph(const CompiledPlan& plan) const;

  /// Frames per stream in one epoch (a multiple of h'), or 0 for a task whose data never ends
  /// (the generated tasks). The text is not continuous from one epoch to the next: the caller
  /// starts every stream afresh there.
  virtual std::int64_t framesPerEpoch() const = 0;
  /// Training frames [begin, begin + frames) of every stream, counted from the start of an epoch
  /// (from the start for endless tasks). The same arguments always give the same data, so a
  /// data cursor is all a checkpoint needs (and BPTT(h; h') can read frames again).
  virtual TaskChunk trainingFrames(std::int64_t begin, int frames) const = 0;

  /// The validation set: validationLength() frames of each of the same N streams, the same for
  /// every call, evaluated in order from a fresh state. Read a chunk at a time with
  /// validationFrames(begin, frames), so that a large set never sits in memory at once.
  virtual std::int64_t validationLength() const = 0;
  virtual TaskChunk validationFrames(std::int64_t begin, int frames) const = 0;
  /// The whole validation set in chunks of at most `frames` frames (small sets, tests).
  std::vector<TaskChunk> validationChunks(int frames) const;

 protected:
  /// An empty chunk of the right sizes for `frames` frames of all streams.
  TaskChunk emptyChunk(int frames, bool withMask) const;

 private:
  StreamShape m_shape;
};

}  // namespace rnnwb::train
