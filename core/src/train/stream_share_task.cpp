#include "rnnwb/core/train/stream_share_task.hpp"

#include <stdexcept>
#include <string>

namespace rnnwb::train {
namespace {

/// Rows [first, first + count) of the stream axis of [frames, streams, width] values.
template <typename T>
std::vector<T> streamRows(const std::vector<T>& values, int frames, int streams, int first,
                          int count) {
  if (values.empty()) return {};
  const std::size_t width = values.size() / (static_cast<std::size_t>(frames) * streams);
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(frames) * count * width);
  for (int f = 0; f < frames; ++f) {
    const auto row = values.begin() + (static_cast<std::size_t>(f) * streams + first) * width;
    out.insert(out.end(), row, row + static_cast<std::ptrdiff_t>(count * width));
  }
  return out;
}

}  // namespace

StreamShareTask::StreamShareTask(std::unique_ptr<Task> whole, int first, int count)
    : Task({count, whole->shape().chunkFrames}), m_whole(std::move(whole)), m_first(first) {
  if (first < 0 || first + count > m_whole->shape().streams)
    throw std::invalid_argument("streams " + std::to_string(first) + ".." +
                                std::to_string(first + count - 1) + " are not within the " +
                                std::to_string(m_whole->shape().streams) + " streams of the task");
}

TaskChunk StreamShareTask::trainingFrames(std::int64_t begin, int frames) const {
  return share(m_whole->trainingFrames(begin, frames));
}

TaskChunk StreamShareTask::validationFrames(std::int64_t begin, int frames) const {
  return share(m_whole->validationFrames(begin, frames));
}

TaskChunk StreamShareTask::share(const TaskChunk& whole) const {
  const int count = shape().streams;
  TaskChunk c;
  c.frames = whole.frames;
  c.streams = count;
  c.inputSize = whole.inputSize;
  c.outputSize = whole.outputSize;
  c.input = streamRows(whole.input, whole.frames, whole.streams, m_first, count);
  c.classTargets = streamRows(whole.classTargets, whole.frames, whole.streams, m_first, count);
  c.valueTargets = streamRows(whole.valueTargets, whole.frames, whole.streams, m_first, count);
  c.targetMask = streamRows(whole.targetMask, whole.frames, whole.streams, m_first, count);
  return c;
}

}  // namespace rnnwb::train
