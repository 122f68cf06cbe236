#include "rnnwb/core/train/char_lm_task.hpp"

#include <stdexcept>

namespace rnnwb::train {

CharLmTask::CharLmTask(std::shared_ptr<const TextCorpus> corpus, double validFraction,
                       StreamShape shape)
    : Task(shape), m_corpus(std::move(corpus)) {
  if (!(validFraction > 0.0 && validFraction <= 0.5))
    throw std::invalid_argument("valid_fraction must be in (0, 0.5], got " +
                                std::to_string(validFraction));
  const auto total = static_cast<std::int64_t>(m_corpus->symbols().size());
  m_trainLength = static_cast<std::int64_t>(static_cast<double>(total) * (1.0 - validFraction));
  m_trainStream = m_trainLength / shape.streams;
  m_validStream = (total - m_trainLength) / shape.streams;
  m_framesPerEpoch = (m_trainStream - 1) / shape.chunkFrames * shape.chunkFrames;
  const std::string size = std::to_string(total) + " characters";
  if (m_framesPerEpoch < 1)
    throw std::invalid_argument(
        m_corpus->source() + ": " + size + " are too few to cut the " + "training part into " +
        std::to_string(shape.streams) +
        " streams of at least h' + 1 = " + std::to_string(shape.chunkFrames + 1) + " characters");
  if (m_validStream < 2)
    throw std::invalid_argument(m_corpus->source() + ": " + size + " are too few to cut the " +
                                "validation part into " + std::to_string(shape.streams) +
                                " streams of at least 2 characters");
}

TaskChunk CharLmTask::chunkOf(std::int64_t partBegin, std::int64_t streamLength, std::int64_t begin,
                              int frames) const {
  TaskChunk c = emptyChunk(frames, false);
  const std::vector<std::int32_t>& text = m_corpus->symbols();
  const int vocabulary = inputSize();
  for (int t = 0; t < frames; ++t) {
    for (int s = 0; s < c.streams; ++s) {
      const std::int64_t at = partBegin + s * streamLength + begin + t;
      const std::size_t cell = static_cast<std::size_t>(t) * c.streams + s;
      c.input[cell * vocabulary + text[at]] = 1.0f;
      c.classTargets[cell] = text[at + 1];
    }
  }
  return c;
}

TaskChunk CharLmTask::trainingFrames(std::int64_t begin, int frames) const {
  return chunkOf(0, m_trainStream, begin, frames);
}

std::int64_t CharLmTask::validationLength() const { return m_validStream - 1; }

TaskChunk CharLmTask::validationFrames(std::int64_t begin, int frames) const {
  return chunkOf(m_trainLength, m_validStream, begin, frames);
}

}  // namespace rnnwb::train
