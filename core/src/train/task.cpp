#include "rnnwb/core/train/task.hpp"

#include <algorithm>
#include <stdexcept>

namespace rnnwb::train {
namespace {

std::string layerList(const CompiledPlan& plan, const std::vector<int>& layers) {
  std::string out;
  for (std::size_t i = 0; i < layers.size(); ++i)
    out += (i ? ", '" : "'") + plan.graph().layers[layers[i]].id + "'";
  return out;
}

}  // namespace

std::int64_t TaskChunk::predictedFrames() const {
  if (targetMask.empty()) return static_cast<std::int64_t>(frames) * streams;
  std::int64_t count = 0;
  for (float m : targetMask) count += m != 0.0f;
  return count;
}

Task::Task(StreamShape shape) : m_shape(shape) {
  if (shape.streams < 1)
    throw std::invalid_argument("streams must be >= 1, got " + std::to_string(shape.streams));
  if (shape.chunkFrames < 1)
    throw std::invalid_argument("h' must be >= 1, got " + std::to_string(shape.chunkFrames));
}

void Task::checkGraph(const CompiledPlan& plan) const {
  const Graph& g = plan.graph();
  const std::string task = "task '" + name() + "'";
  if (plan.inputLayers().size() != 1)
    throw std::invalid_argument(task + " needs a graph with exactly one input layer, '" + g.name +
                                "' has " + std::to_string(plan.inputLayers().size()) + ": " +
                                layerList(plan, plan.inputLayers()));
  if (plan.outputLayers().size() != 1)
    throw std::invalid_argument(task + " needs a graph with exactly one output layer, '" + g.name +
                                "' has " + std::to_string(plan.outputLayers().size()) + ": " +
                                layerList(plan, plan.outputLayers()));
  const Layer& in = g.layers[plan.inputLayers().front()];
  const Layer& out = g.layers[plan.outputLayers().front()];
  if (in.size != inputSize())
    throw std::invalid_argument(task + " needs an input layer of size " +
                                std::to_string(inputSize()) + ", input layer '" + in.id +
                                "' has size " + std::to_string(in.size));
  if (out.size != outputSize())
    throw std::invalid_argument(task + " needs an output layer of size " +
                                std::to_string(outputSize()) + ", output layer '" + out.id +
                                "' has size " + std::to_string(out.size));
  const LossKind needed =
      targetKind() == TargetKind::Class ? LossKind::CrossEntropy : LossKind::Mse;
  if (out.loss != needed)
    throw std::invalid_argument(task + " needs the loss '" + std::string(toString(needed)) +
                                "' on output layer '" + out.id + "', it has '" +
                                std::string(toString(out.loss)) + "'");
}

std::vector<TaskChunk> Task::validationChunks(int frames) const {
  std::vector<TaskChunk> chunks;
  const std::int64_t length = validationLength();
  for (std::int64_t begin = 0; begin < length; begin += frames)
    chunks.push_back(
        validationFrames(begin, static_cast<int>(std::min<std::int64_t>(frames, length - begin))));
  return chunks;
}

TaskChunk Task::emptyChunk(int frames, bool withMask) const {
  TaskChunk c;
  c.frames = frames;
  c.streams = m_shape.streams;
  c.inputSize = inputSize();
  c.outputSize = outputSize();
  const std::size_t cells = static_cast<std::size_t>(frames) * m_shape.streams;
  c.input.assign(cells * inputSize(), 0.0f);
  if (targetKind() == TargetKind::Class)
    c.classTargets.assign(cells, 0);
  else
    c.valueTargets.assign(cells * outputSize(), 0.0f);
  if (withMask) c.targetMask.assign(cells, 0.0f);
  return c;
}

}  // namespace rnnwb::train
