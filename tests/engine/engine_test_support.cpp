#include "engine_test_support.hpp"

#include <random>

#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::testing {

Graph graphFromJson(std::string_view json) {
  GraphLoadResult result = parseGraph(json);
  if (!result.ok()) throw GraphError(result.problems);
  return *result.graph;
}

Graph withLayerSize(Graph graph, int size) {
  for (Layer& layer : graph.layers) layer.size = size;
  return graph;
}

void randomizeParameters(ParameterSet& params, std::uint64_t seed, double scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  for (float& v : params.values()) v = uniform(rng);
  params.applyMasks();
}

SequenceBatch randomBatch(const CompiledPlan& plan, int frames, int streams, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  SequenceBatch batch;
  batch.frames = frames;
  batch.streams = streams;
  const auto& layers = plan.graph().layers;
  for (int l : plan.inputLayers()) {
    Tensor input = Tensor::zerosF32({frames, streams, layers[l].size});
    for (float& v : input.f32()) v = uniform(rng);
    batch.inputs.push_back(std::move(input));
  }
  for (int l : plan.outputLayers()) {
    if (layers[l].loss == LossKind::CrossEntropy) {
      Tensor target = Tensor::zerosI64({frames, streams});
      std::uniform_int_distribution<std::int64_t> cls(0, layers[l].size - 1);
      for (auto& v : target.i64()) v = cls(rng);
      batch.targets.push_back(std::move(target));
    } else {
      Tensor target = Tensor::zerosF32({frames, streams, layers[l].size});
      for (float& v : target.f32()) v = uniform(rng);
      batch.targets.push_back(std::move(target));
    }
  }
  return batch;
}

StreamState randomState(const CompiledPlan& plan, int streams, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  StreamState state(plan, streams);
  for (int l = 0; l < state.layerCount(); ++l)
    for (float& v : state.layerFrames(l)) v = uniform(rng);
  return state;
}

namespace {

Tensor sliceTensor(const Tensor& tensor, int first, int count, int streamFirst, int streamCount) {
  Shape shape = tensor.shape();
  const std::int64_t streams = shape[1];
  const std::int64_t inner = shape.size() == 3 ? shape[2] : 1;
  shape[0] = count;
  shape[1] = streamCount;
  if (tensor.dtype() == DType::F32) {
    std::vector<float> values;
    for (int t = first; t < first + count; ++t)
      for (int n = streamFirst; n < streamFirst + streamCount; ++n) {
        const auto row = tensor.f32().subspan((t * streams + n) * inner, inner);
        values.insert(values.end(), row.begin(), row.end());
      }
    return Tensor::fromF32(shape, std::move(values));
  }
  std::vector<std::int64_t> values;
  for (int t = first; t < first + count; ++t)
    for (int n = streamFirst; n < streamFirst + streamCount; ++n)
      values.push_back(tensor.i64()[t * streams + n]);
  return Tensor::fromI64(shape, std::move(values));
}

SequenceBatch slice(const SequenceBatch& batch, int first, int count, int stream, int streams) {
  SequenceBatch out;
  out.frames = count;
  out.streams = streams;
  for (const Tensor& t : batch.inputs)
    out.inputs.push_back(sliceTensor(t, first, count, stream, streams));
  for (const Tensor& t : batch.targets)
    out.targets.push_back(sliceTensor(t, first, count, stream, streams));
  return out;
}

}  // namespace

SequenceBatch sliceFrames(const SequenceBatch& batch, int first, int count) {
  return slice(batch, first, count, 0, batch.streams);
}

SequenceBatch selectStream(const SequenceBatch& batch, int stream) {
  return slice(batch, 0, batch.frames, stream, 1);
}

}  // namespace rnnwb::testing
