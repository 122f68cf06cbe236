#include "rnnwb/core/engine/example_batch.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace rnnwb {
namespace {

long long ceilDiv(long long n, long long d) { return (n + d - 1) / d; }

[[noreturn]] void invalid(std::size_t example, const std::string& what) {
  throw std::invalid_argument("example " + std::to_string(example) + ": " + what);
}

std::string numberedKey(const CompiledPlan& plan, const char* kind, const std::vector<int>& layers,
                        int layer, std::size_t k) {
  std::string key = kind;
  if (layers.size() > 1) key += "." + plan.graph().layers[layer].id;
  return key + "." + std::to_string(k);
}

void checkInput(const CompiledPlan& plan, int layer, const Tensor& input, std::size_t e,
                const Shape& grid) {
  const Layer& spec = plan.graph().layers[layer];
  Shape expected = grid;
  expected.push_back(spec.size);
  if (input.dtype() != DType::F32 || input.shape() != expected)
    invalid(e, "the input of layer '" + spec.id + "' is " + input.describe() + ", expected F32 " +
                   shapeToString(expected));
  for (std::int64_t d : grid)
    if (d < 1) invalid(e, "the input of layer '" + spec.id + "' is empty");
}

void checkTarget(const CompiledPlan& plan, int layer, const Tensor& target, std::size_t e,
                 GridExtent extent) {
  const Layer& spec = plan.graph().layers[layer];
  const bool twoD = plan.grid(layer).dimensions == 2;
  Shape grid = twoD ? Shape{extent.height, extent.width} : Shape{extent.width};
  const std::string what = "the target of layer '" + spec.id + "' is " + target.describe();
  if (spec.loss == LossKind::Ctc) {
    if (target.dtype() != DType::I64 || target.shape().size() != 1)
      invalid(e, what + ", expected I64 [L] (the label sequence)");
    for (std::int64_t label : target.i64())
      if (label < 1 || label >= spec.size)
        invalid(e, "layer '" + spec.id + "': label " + std::to_string(label) + " is outside [1, " +
                       std::to_string(spec.size) + ") (class 0 is the blank)");
    return;
  }
  if (spec.loss == LossKind::CrossEntropy) {
    if (target.dtype() != DType::I64 || target.shape() != grid)
      invalid(e, what + ", expected I64 " + shapeToString(grid) + " at the layer's grid");
    for (std::int64_t c : target.i64())
      if (c < 0 || c >= spec.size)
        invalid(e, "layer '" + spec.id + "': class " + std::to_string(c) + " is outside [0, " +
                       std::to_string(spec.size) + ")");
    return;
  }
  grid.push_back(spec.size);
  if (target.dtype() != DType::F32 || target.shape() != grid)
    invalid(e, what + ", expected F32 " + shapeToString(grid) + " at the layer's grid");
}

}  // namespace

int Example::height(int dimensions) const {
  return dimensions == 2 ? static_cast<int>(inputs.front().shape()[0]) : 1;
}

int Example::width(int dimensions) const {
  return static_cast<int>(inputs.front().shape()[dimensions == 2 ? 1 : 0]);
}

GridExtent layerExtent(const CompiledPlan& plan, int layer, int height, int width) {
  const LayerGrid& grid = plan.grid(layer);
  GridExtent extent;
  extent.width = static_cast<int>(ceilDiv(width, grid.divideX));
  if (grid.dimensions == 2) extent.height = static_cast<int>(ceilDiv(height, grid.divideY));
  return extent;
}

void ExampleBatch::check(const CompiledPlan& plan, bool needTargets) const {
  const int dimensions = plan.graph().dimensions;
  if (examples.empty()) throw std::invalid_argument("no examples");
  for (std::size_t e = 0; e < examples.size(); ++e) {
    const Example& example = examples[e];
    if (example.inputs.size() != plan.inputLayers().size())
      invalid(e, std::to_string(example.inputs.size()) + " inputs for " +
                     std::to_string(plan.inputLayers().size()) + " input layers");
    const Tensor& first = example.inputs.front();
    const std::size_t rank = dimensions == 2 ? 2 : 1;
    if (first.shape().size() != rank + 1)
      invalid(e, "the input of layer '" + plan.graph().layers[plan.inputLayers().front()].id +
                     "' is " + first.describe() + ", expected F32 " +
                     (dimensions == 2 ? "[H, W, size]" : "[T, size]"));
    const Shape grid(first.shape().begin(), first.shape().begin() + rank);
    for (std::size_t i = 0; i < example.inputs.size(); ++i)
      checkInput(plan, plan.inputLayers()[i], example.inputs[i], e, grid);
    if (example.targets.empty() && !needTargets) continue;
    if (example.targets.size() != plan.outputLayers().size())
      invalid(e, std::to_string(example.targets.size()) + " targets for " +
                     std::to_string(plan.outputLayers().size()) + " output layers");
    for (std::size_t o = 0; o < example.targets.size(); ++o) {
      const int layer = plan.outputLayers()[o];
      checkTarget(plan, layer, example.targets[o], e,
                  layerExtent(plan, layer, example.height(dimensions), example.width(dimensions)));
    }
  }
}

bool holdsNumberedExamples(const CompiledPlan& plan, const TensorFile& file) {
  return file.contains(
      numberedKey(plan, "input", plan.inputLayers(), plan.inputLayers().front(), 0));
}

ExampleBatch examplesFromTensorFile(const CompiledPlan& plan, const TensorFile& file,
                                    bool withTargets) {
  if (!holdsNumberedExamples(plan, file)) {
    if (plan.graph().dimensions == 2)
      throw std::runtime_error(
          file.path.string() + ": no tensor '" +
          numberedKey(plan, "input", plan.inputLayers(), plan.inputLayers().front(), 0) +
          "' (a 2-D graph's data file holds its examples by number: input.<k> [H, W, size])");
    return examplesFromSequences(batchFromTensorFile(plan, file, withTargets));
  }
  ExampleBatch batch;
  const auto& inputs = plan.inputLayers();
  const auto& outputs = plan.outputLayers();
  for (std::size_t k = 0; file.contains(numberedKey(plan, "input", inputs, inputs.front(), k));
       ++k) {
    Example example;
    for (int l : inputs)
      example.inputs.push_back(file.at(numberedKey(plan, "input", inputs, l, k)));
    if (withTargets)
      for (int l : outputs)
        example.targets.push_back(file.at(numberedKey(plan, "target", outputs, l, k)));
    batch.examples.push_back(std::move(example));
  }
  try {
    batch.check(plan, withTargets);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(file.path.string() + ": " + e.what());
  }
  return batch;
}

ExampleBatch examplesFromSequences(const SequenceBatch& sequences) {
  ExampleBatch batch;
  const std::int64_t frames = sequences.frames, streams = sequences.streams;
  // Row (t, n) of a [T, N, ...] tensor to row t of example n.
  const auto slice = [&](const Tensor& whole, std::int64_t n) {
    const Shape& shape = whole.shape();
    const std::int64_t width = shape.size() == 3 ? shape[2] : 1;
    Shape part{frames};
    if (shape.size() == 3) part.push_back(width);
    const auto rowsOf = [&](const auto& all) {
      std::vector<std::decay_t<decltype(all[0])>> values(static_cast<std::size_t>(frames * width));
      for (std::int64_t t = 0; t < frames; ++t)
        for (std::int64_t i = 0; i < width; ++i)
          values[t * width + i] = all[(t * streams + n) * width + i];
      return values;
    };
    return whole.dtype() == DType::I64 ? Tensor::fromI64(part, rowsOf(whole.i64()))
                                       : Tensor::fromF32(part, rowsOf(whole.f32()));
  };
  for (std::int64_t n = 0; n < streams; ++n) {
    Example example;
    for (const Tensor& input : sequences.inputs) example.inputs.push_back(slice(input, n));
    for (const Tensor& target : sequences.targets) example.targets.push_back(slice(target, n));
    batch.examples.push_back(std::move(example));
  }
  return batch;
}

}  // namespace rnnwb
