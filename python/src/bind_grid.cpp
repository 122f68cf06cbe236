// The numbers of graphs and data that go to the grid engine (grid_engine.hpp), as `rnnwb grad`
// sends them there (needsGridEngine): 2-D graphs, graphs that read ahead, numbered examples.
// bind_numbers.cpp calls these when needsGridEngine() says so. Data read as numbered examples
// gives outputs per example; version 1's [T, N, size] data (N whole sequences) gives them as
// [T, N, size] again, so that a caller sees the shapes it gave.
#include <nanobind/stl/string.h>

#include <cmath>
#include <stdexcept>

#include "convert.hpp"
#include "grid_numbers.hpp"
#include "rnnwb/core/engine/example_batch.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"

namespace rnnwb::python {

GridEngine& PyGraph::grid(const std::string& packer) {
  if (!gridEngine || gridPacker != packer) {
    gridEngine = std::make_unique<GridEngine>(compiled(), GridEngineOptions{packer});
    gridPacker = packer;
  }
  return *gridEngine;
}

namespace {

ExampleBatch readExamples(PyGraph& g, const TensorFile& file, bool withTargets) {
  ExampleBatch batch = examplesFromTensorFile(g.compiled(), file, withTargets);
  file.rejectUnread("a data file for " + g.name());
  return batch;
}

/// [T, size] of every sequence n as one [T, N, size] tensor (the examples of version 1 data).
Tensor stackSequences(const std::vector<const Tensor*>& sequences) {
  const auto frames = sequences.front()->shape()[0], size = sequences.front()->shape()[1];
  const auto streams = static_cast<std::int64_t>(sequences.size());
  Tensor out = Tensor::zerosF32({frames, streams, size});
  for (std::int64_t n = 0; n < streams; ++n)
    for (std::int64_t t = 0; t < frames; ++t)
      std::copy_n(sequences[n]->f32().data() + t * size, size,
                  out.f32().data() + (t * streams + n) * size);
  return out;
}

/// Sequence n of [T, N, size] as [T, size].
Tensor sequenceOf(const Tensor& stacked, std::int64_t n) {
  const auto frames = stacked.shape()[0], streams = stacked.shape()[1], size = stacked.shape()[2];
  Tensor out = Tensor::zerosF32({frames, size});
  for (std::int64_t t = 0; t < frames; ++t)
    std::copy_n(stacked.f32().data() + (t * streams + n) * size, size, out.f32().data() + t * size);
  return out;
}

/// Per-example tensors ([example][k], k over `layers`) as Python: a list of {id: array} per
/// example, or, for version 1 data, one {key: [T, N, size]}.
nb::object perExample(const CompiledPlan& plan, const std::vector<std::vector<Tensor>>& values,
                      const std::vector<int>& layers, bool numbered, bool dataKeys) {
  const auto name = [&](std::size_t k) {
    return dataKeys ? inputKey(plan, layers[k]) : plan.graph().layers[layers[k]].id;
  };
  if (!numbered) {
    nb::dict out;
    for (std::size_t k = 0; k < layers.size(); ++k) {
      std::vector<const Tensor*> sequences;
      for (const auto& example : values) sequences.push_back(&example[k]);
      out[name(k).c_str()] = toNumpy(stackSequences(sequences));
    }
    return out;
  }
  nb::list out;
  for (const auto& example : values) {
    nb::dict d;
    for (std::size_t k = 0; k < layers.size(); ++k) d[name(k).c_str()] = toNumpy(example[k]);
    out.append(d);
  }
  return out;
}

/// The gradients of the outputs as [example][output]: a list of {output id: array} per example
/// (numbered data), or one {output id: [T, N, size]} (version 1 data).
std::vector<std::vector<Tensor>> givenGradients(const CompiledPlan& plan, const nb::handle& given,
                                                std::size_t examples, bool numbered) {
  const auto read = [&](const nb::dict& d, const std::string& origin) {
    const TensorFile file = tensorFileFromDict(d, origin);
    std::vector<Tensor> grads;
    for (int l : plan.outputLayers()) grads.push_back(file.at(plan.graph().layers[l].id));
    file.rejectUnread(origin);
    return grads;
  };
  std::vector<std::vector<Tensor>> out(examples);
  if (!numbered) {
    const std::vector<Tensor> stacked = read(nb::cast<nb::dict>(given), "the output gradients");
    for (std::size_t o = 0; o < stacked.size(); ++o) {
      const Shape& s = stacked[o].shape();
      if (stacked[o].dtype() != DType::F32 || s.size() != 3 ||
          s[1] != static_cast<std::int64_t>(examples))
        throw std::invalid_argument("the gradient of output layer '" +
                                    plan.graph().layers[plan.outputLayers()[o]].id + "' is " +
                                    stacked[o].describe() + ", expected F32 [T, " +
                                    std::to_string(examples) + ", size]");
      for (std::size_t e = 0; e < examples; ++e)
        out[e].push_back(sequenceOf(stacked[o], static_cast<std::int64_t>(e)));
    }
    return out;
  }
  const nb::list list = nb::cast<nb::list>(given);
  if (list.size() != examples)
    throw std::invalid_argument("gradients of the outputs of " + std::to_string(list.size()) +
                                " examples for " + std::to_string(examples));
  for (std::size_t e = 0; e < examples; ++e)
    out[e] =
        read(nb::cast<nb::dict>(list[e]), "the output gradients of example " + std::to_string(e));
  return out;
}

}  // namespace

double gridGrad(PyGraph& g, const ParameterSet& params, const TensorFile& data,
                const std::string& packer, ParameterSet& gradients) {
  const ExampleBatch batch = readExamples(g, data, true);
  const nb::gil_scoped_release noGil;
  const std::lock_guard<std::mutex> lock(g.mutex);
  GridEngine& engine = g.grid(packer);
  const EngineClock clock(g.lastEngineSeconds);
  return engine.forwardBackward(params, batch, gradients);
}

nb::tuple gridForward(PyGraph& g, const ParameterSet& params, const TensorFile& data,
                      bool withTargets, const std::string& packer) {
  const CompiledPlan& plan = g.compiled();
  const bool numbered = holdsNumberedExamples(plan, data);
  const ExampleBatch batch = readExamples(g, data, withTargets);
  GridForward forward;
  {
    const nb::gil_scoped_release noGil;
    const std::lock_guard<std::mutex> lock(g.mutex);
    forward = g.grid(packer).forward(params, batch, withTargets, true);
  }
  return nb::make_tuple(withTargets ? nb::cast(forward.loss()) : nb::none(),
                        perExample(plan, forward.outputs, plan.outputLayers(), numbered, false));
}

nb::object gridBackwardFromOutputs(PyGraph& g, const ParameterSet& params, const TensorFile& data,
                                   const nb::handle& outputGradients, bool inputGradients,
                                   const std::string& packer, ParameterSet& gradients) {
  const CompiledPlan& plan = g.compiled();
  const bool numbered = holdsNumberedExamples(plan, data);
  const ExampleBatch batch = readExamples(g, data, false);
  const std::vector<std::vector<Tensor>> given =
      givenGradients(plan, outputGradients, batch.examples.size(), numbered);
  std::vector<std::vector<Tensor>> inputs;
  {
    const nb::gil_scoped_release noGil;
    const std::lock_guard<std::mutex> lock(g.mutex);
    g.grid(packer).backwardFromOutputs(params, batch, given, gradients,
                                       inputGradients ? &inputs : nullptr);
  }
  if (!inputGradients) return nb::none();
  return perExample(plan, inputs, plan.inputLayers(), numbered, true);
}

}  // namespace rnnwb::python
