#include "rnnwb/core/train/synthetic_tasks.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "rnnwb/core/train/counter_random.hpp"

namespace rnnwb::train {
namespace {

// Separate seed domains, so the validation sequences never repeat training ones.
constexpr std::uint64_t kTrainingData = 1;
constexpr std::uint64_t kValidationData = 2;

void requireAtLeast(const char* what, int value, int minimum) {
  if (value < minimum)
    throw std::invalid_argument(std::string(what) + " must be >= " + std::to_string(minimum) +
                                ", got " + std::to_string(value));
}

int perStream(int sequences, int streams) { return (sequences + streams - 1) / streams; }

}  // namespace

AddingTask::AddingTask(int sequenceLength, int validationSequences, std::uint64_t seed,
                       StreamShape shape)
    : Task(shape), m_length(sequenceLength), m_seed(seed) {
  requireAtLeast("adding: sequence_length", sequenceLength, 2);
  requireAtLeast("adding: valid_sequences", validationSequences, 1);
  m_validSequencesPerStream = perStream(validationSequences, shape.streams);
}

TaskChunk AddingTask::chunkOf(std::uint64_t purpose, std::int64_t begin, int frames) const {
  TaskChunk c = emptyChunk(frames, true);
  std::vector<float> values(m_length);
  for (int s = 0; s < c.streams; ++s) {
    std::int64_t drawn = -1;  // the sequence whose values are in `values`
    int first = 0, second = 0;
    for (int t = 0; t < frames; ++t) {
      const std::int64_t frame = begin + t, sequence = frame / m_length;
      const int at = static_cast<int>(frame % m_length);
      if (sequence != drawn) {
        SequenceRandom random(mixSeed(m_seed, purpose, static_cast<std::uint64_t>(s),
                                      static_cast<std::uint64_t>(sequence)));
        for (float& v : values) v = random.nextFloat();
        const int half = m_length / 2;
        first = random.nextBelow(half);
        second = half + random.nextBelow(m_length - half);
        drawn = sequence;
      }
      const std::size_t cell = static_cast<std::size_t>(t) * c.streams + s;
      c.input[cell * 2] = values[at];
      c.input[cell * 2 + 1] = (at == first || at == second) ? 1.0f : 0.0f;
      if (at == m_length - 1) {
        c.valueTargets[cell] = values[first] + values[second];
        c.targetMask[cell] = 1.0f;
      }
    }
  }
  return c;
}

TaskChunk AddingTask::trainingFrames(std::int64_t begin, int frames) const {
  return chunkOf(kTrainingData, begin, frames);
}

std::int64_t AddingTask::validationLength() const {
  return static_cast<std::int64_t>(m_validSequencesPerStream) * m_length;
}

TaskChunk AddingTask::validationFrames(std::int64_t begin, int frames) const {
  return chunkOf(kValidationData, begin, frames);
}

CopyTask::CopyTask(int length, int delay, int alphabet, int validationSequences, std::uint64_t seed,
                   StreamShape shape)
    : Task(shape), m_length(length), m_delay(delay), m_alphabet(alphabet), m_seed(seed) {
  requireAtLeast("copy: length", length, 1);
  requireAtLeast("copy: delay", delay, 1);
  requireAtLeast("copy: alphabet", alphabet, 2);
  requireAtLeast("copy: valid_sequences", validationSequences, 1);
  m_validSequencesPerStream = perStream(validationSequences, shape.streams);
}

double CopyTask::memorylessLoss() const {
  return m_length * std::log(static_cast<double>(m_alphabet)) / sequenceLength();
}

TaskChunk CopyTask::chunkOf(std::uint64_t purpose, std::int64_t begin, int frames) const {
  TaskChunk c = emptyChunk(frames, false);
  const int length = sequenceLength(), inputs = inputSize();
  std::vector<int> symbols(m_length);
  for (int s = 0; s < c.streams; ++s) {
    std::int64_t drawn = -1;
    for (int t = 0; t < frames; ++t) {
      const std::int64_t frame = begin + t, sequence = frame / length;
      const int at = static_cast<int>(frame % length);
      if (sequence != drawn) {
        SequenceRandom random(mixSeed(m_seed, purpose, static_cast<std::uint64_t>(s),
                                      static_cast<std::uint64_t>(sequence)));
        for (int& symbol : symbols) symbol = 1 + random.nextBelow(m_alphabet);
        drawn = sequence;
      }
      // Input: symbols, delay - 1 blanks, the delimiter, L blanks. Target: blanks until the
      // delimiter has been read, then the symbols.
      int input = 0, target = 0;
      if (at < m_length)
        input = symbols[at];
      else if (at == m_length + m_delay - 1)
        input = m_alphabet + 1;
      if (at >= m_length + m_delay) target = symbols[at - m_length - m_delay];
      const std::size_t cell = static_cast<std::size_t>(t) * c.streams + s;
      c.input[cell * inputs + input] = 1.0f;
      c.classTargets[cell] = target;
    }
  }
  return c;
}

TaskChunk CopyTask::trainingFrames(std::int64_t begin, int frames) const {
  return chunkOf(kTrainingData, begin, frames);
}

std::int64_t CopyTask::validationLength() const {
  return static_cast<std::int64_t>(m_validSequencesPerStream) * sequenceLength();
}

TaskChunk CopyTask::validationFrames(std::int64_t begin, int frames) const {
  return chunkOf(kValidationData, begin, frames);
}

}  // namespace rnnwb::train
