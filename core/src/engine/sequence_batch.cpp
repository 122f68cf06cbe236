#include "rnnwb/core/engine/sequence_batch.hpp"

#include <stdexcept>

namespace rnnwb {
namespace {

[[noreturn]] void invalid(const std::string& message) { throw std::invalid_argument(message); }

void checkTarget(const Layer& layer, const Tensor& target, int frames, int streams) {
  const std::string what = "target of output layer '" + layer.id + "'";
  if (layer.loss == LossKind::CrossEntropy) {
    if (target.dtype() != DType::I64 || target.shape() != Shape{frames, streams})
      invalid(what + " is " + target.describe() + ", expected I64 " +
              shapeToString({frames, streams}) + " (classes for cross_entropy)");
    const auto classes = target.i64();
    for (std::size_t i = 0; i < classes.size(); ++i)
      if (classes[i] < 0 || classes[i] >= layer.size)
        invalid(what + " has class " + std::to_string(classes[i]) + " at frame " +
                std::to_string(i / streams) + ", stream " + std::to_string(i % streams) +
                " (the layer has " + std::to_string(layer.size) + " classes)");
    return;
  }
  if (target.dtype() != DType::F32 || target.shape() != Shape{frames, streams, layer.size})
    invalid(what + " is " + target.describe() + ", expected F32 " +
            shapeToString({frames, streams, layer.size}) + " (mse)");
}

}  // namespace

void SequenceBatch::check(const CompiledPlan& plan, bool needTargets) const {
  if (frames < 1 || streams < 1)
    invalid("a batch needs at least one frame and one stream (has " + std::to_string(frames) +
            " frames, " + std::to_string(streams) + " streams)");
  if (firstPredictedFrame < 0 || firstPredictedFrame > frames)
    invalid("firstPredictedFrame " + std::to_string(firstPredictedFrame) + " outside [0, " +
            std::to_string(frames) + "]");
  if (carryFrames != -1 && (carryFrames < 0 || carryFrames > frames))
    invalid("carryFrames " + std::to_string(carryFrames) + " outside [0, " +
            std::to_string(frames) + "]");
  const auto& layers = plan.graph().layers;
  if (inputs.size() != plan.inputLayers().size())
    invalid(std::to_string(inputs.size()) + " input tensors for " +
            std::to_string(plan.inputLayers().size()) + " input layers");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Layer& layer = layers[plan.inputLayers()[i]];
    const Shape expected{frames, streams, layer.size};
    if (inputs[i].dtype() != DType::F32 || inputs[i].shape() != expected)
      invalid("input of layer '" + layer.id + "' is " + inputs[i].describe() + ", expected F32 " +
              shapeToString(expected));
  }
  if (targets.empty() && !needTargets) return;
  if (targets.size() != plan.outputLayers().size())
    invalid(std::to_string(targets.size()) + " target tensors for " +
            std::to_string(plan.outputLayers().size()) + " output layers");
  for (std::size_t i = 0; i < targets.size(); ++i)
    checkTarget(layers[plan.outputLayers()[i]], targets[i], frames, streams);
}

std::string inputKey(const CompiledPlan& plan, int layer) {
  if (plan.inputLayers().size() == 1) return "input";
  return "input." + plan.graph().layers[layer].id;
}

std::string targetKey(const CompiledPlan& plan, int layer) {
  if (plan.outputLayers().size() == 1) return "target";
  return "target." + plan.graph().layers[layer].id;
}

SequenceBatch batchFromTensorFile(const CompiledPlan& plan, const TensorFile& file,
                                  bool withTargets) {
  SequenceBatch batch;
  const auto& layers = plan.graph().layers;
  for (int l : plan.inputLayers()) {
    const std::string key = inputKey(plan, l);
    const Tensor& input = file.at(key);
    if (input.dtype() != DType::F32 || input.shape().size() != 3 ||
        input.shape()[2] != layers[l].size)
      throw std::runtime_error(file.path.string() + ": tensor '" + key + "' is " +
                               input.describe() + ", expected F32 [T, N, " +
                               std::to_string(layers[l].size) + "] for input layer '" +
                               layers[l].id + "'");
    batch.inputs.push_back(input);
  }
  batch.frames = static_cast<int>(batch.inputs.front().shape()[0]);
  batch.streams = static_cast<int>(batch.inputs.front().shape()[1]);
  for (int l : withTargets ? plan.outputLayers() : std::vector<int>{}) {
    const std::string key = targetKey(plan, l);
    const Tensor& target = file.at(key);
    batch.targets.push_back(target);
  }
  try {
    batch.check(plan, withTargets);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(file.path.string() + ": " + e.what());
  }
  return batch;
}

}  // namespace rnnwb
