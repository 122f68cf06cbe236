#pragma once
// One rank's share of a task's streams in a data-parallel run (docs/distributed.md): the task of
// all N streams, of which this rank trains and validates streams [first, first + count). Stream s
// of the share is stream first + s of the whole, frame for frame, so R ranks of N/R streams see
// exactly the data one process of N streams sees.
#include <memory>

#include "rnnwb/core/train/task.hpp"

namespace rnnwb::train {

class StreamShareTask final : public Task {
 public:
  /// Throws std::invalid_argument when [first, first + count) is not within the task's streams.
  StreamShareTask(std::unique_ptr<Task> whole, int first, int count);

  std::string name() const override { return m_whole->name(); }
  int inputSize() const override { return m_whole->inputSize(); }
  int outputSize() const override { return m_whole->outputSize(); }
  TargetKind targetKind() const override { return m_whole->targetKind(); }
  bool reportsBitsPerCharacter() const override { return m_whole->reportsBitsPerCharacter(); }
  std::int64_t framesPerEpoch() const override { return m_whole->framesPerEpoch(); }
  TaskChunk trainingFrames(std::int64_t begin, int frames) const override;
  std::int64_t validationLength() const override { return m_whole->validationLength(); }
  TaskChunk validationFrames(std::int64_t begin, int frames) const override;

 private:
  TaskChunk share(const TaskChunk& whole) const;
  std::unique_ptr<Task> m_whole;
  int m_first;
};

}  // namespace rnnwb::train
