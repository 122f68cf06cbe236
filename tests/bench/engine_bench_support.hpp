#pragma once
// What the two training-throughput benchmarks share (bench_engine for the CPU engine,
// tests/gpu/bench_gpu_engine for the CUDA one): the graph resized to the benchmark's shape, a
// random chunk, and the "--name value" options.
#include <charconv>
#include <iostream>
#include <map>
#include <random>
#include <string>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/sequence_batch.hpp"
#include "rnnwb/core/graph.hpp"

namespace rnnwb::engine_bench {

/// Input layers get `input` units, output layers `output`, every other layer `hidden`; 0 keeps
/// the file's size.
inline Graph resizedGraph(Graph graph, int input, int hidden, int output) {
  for (Layer& layer : graph.layers) {
    const int size = layer.isInput() ? input : layer.isOutput() ? output : hidden;
    if (size > 0) layer.size = size;
  }
  return graph;
}

/// Inputs and mse targets uniform in [-1, 1], class targets uniform; the same for one shape.
inline SequenceBatch randomTrainingBatch(const CompiledPlan& plan, int frames, int streams) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  SequenceBatch batch;
  batch.frames = frames;
  batch.streams = streams;
  for (int l : plan.inputLayers()) {
    Tensor t = Tensor::zerosF32({frames, streams, plan.graph().layers[l].size});
    for (float& v : t.f32()) v = uniform(rng);
    batch.inputs.push_back(std::move(t));
  }
  for (int l : plan.outputLayers()) {
    const Layer& layer = plan.graph().layers[l];
    if (layer.loss == LossKind::CrossEntropy) {
      Tensor t = Tensor::zerosI64({frames, streams});
      for (auto& v : t.i64()) v = std::uniform_int_distribution<int>(0, layer.size - 1)(rng);
      batch.targets.push_back(std::move(t));
    } else {
      Tensor t = Tensor::zerosF32({frames, streams, layer.size});
      for (float& v : t.f32()) v = uniform(rng);
      batch.targets.push_back(std::move(t));
    }
  }
  return batch;
}

/// Reads "--label NAME" and "--key N" pairs from argv[first] on into `label` and the integers
/// `ints` names. Returns false, having said why, on an unknown option, an option without its
/// value, or a value that is not a whole integer ("--frames 2k" is refused, not read as 2).
inline bool parseBenchOptions(int argc, char** argv, int first, std::string& label,
                              const std::map<std::string, int*>& ints) {
  for (int i = first; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 == argc) {
      std::cerr << "option " << key << " needs a value\n";
      return false;
    }
    const std::string value = argv[i + 1];
    if (key == "--label") {
      label = value;
      continue;
    }
    const auto found = ints.find(key);
    if (found == ints.end()) {
      std::cerr << "unknown option " << key << '\n';
      return false;
    }
    const char* end = value.data() + value.size();
    const auto [stop, error] = std::from_chars(value.data(), end, *found->second);
    if (error != std::errc() || stop != end) {
      std::cerr << "option " << key << " takes an integer, not '" << value << "'\n";
      return false;
    }
  }
  return true;
}

}  // namespace rnnwb::engine_bench
