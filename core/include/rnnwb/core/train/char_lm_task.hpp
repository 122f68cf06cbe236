#pragma once
// Character-level language modelling on a UTF-8 text: the input of a frame is the one-hot code
// of a character, its target the index of the next one. The text is split into a training part
// (the first 1 - validFraction of it) and a validation part (the rest); each is cut into N
// contiguous pieces, one per stream, read from start to end. An epoch is one pass over the
// training pieces (rounded down to whole chunks of h' frames).
#include <memory>

#include "rnnwb/core/train/task.hpp"
#include "rnnwb/core/train/text_corpus.hpp"

namespace rnnwb::train {

class CharLmTask final : public Task {
 public:
  /// Throws std::invalid_argument when the text is too short for N streams of one chunk each in
  /// either part, or validFraction is outside (0, 0.5].
  CharLmTask(std::shared_ptr<const TextCorpus> corpus, double validFraction, StreamShape shape);

  std::string name() const override { return "char-lm"; }
  int inputSize() const override { return m_corpus->vocabularySize(); }
  int outputSize() const override { return m_corpus->vocabularySize(); }
  TargetKind targetKind() const override { return TargetKind::Class; }
  bool reportsBitsPerCharacter() const override { return true; }
  std::int64_t framesPerEpoch() const override { return m_framesPerEpoch; }
  TaskChunk trainingFrames(std::int64_t begin, int frames) const override;
  std::int64_t validationLength() const override;
  TaskChunk validationFrames(std::int64_t begin, int frames) const override;

  const TextCorpus& corpus() const { return *m_corpus; }

 private:
  /// Frames [begin, begin+frames) of every stream of the part [partBegin, partBegin+partLength).
  TaskChunk chunkOf(std::int64_t partBegin, std::int64_t streamLength, std::int64_t begin,
                    int frames) const;

  std::shared_ptr<const TextCorpus> m_corpus;
  std::int64_t m_trainLength = 0;  // symbols in the training part
  std::int64_t m_trainStream = 0;  // symbols per training stream
  std::int64_t m_validStream = 0;  // symbols per validation stream
  std::int64_t m_framesPerEpoch = 0;
};

}  // namespace rnnwb::train
