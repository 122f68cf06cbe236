// The numbers of a graph: initial weights (rnnwb init), gradients (rnnwb grad), the forward
// outputs, and the backward from gradients of the outputs given from outside (rnnwb.torch).
// Weights and data are dicts of arrays under the keys of graph-format.md's files, read with the
// same functions and messages as the CLI's files (named "weights" and "data" here).
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cmath>

#include "bindings.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/engine/example_batch.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::python {

namespace {

std::string graphName(const PyGraph& g) {
  return g.path.empty() ? "graph '" + g.graph.name + "'" : g.path;
}

ParameterSet readWeights(PyGraph& g, const nb::dict& weights) {
  const TensorFile file = tensorFileFromDict(weights, "weights");
  ParameterSet params = parametersFromTensors(g.compiled(), file);
  // A checkpoint is a weights file too: its optimizer, stream and RTRL state are not extra.
  file.rejectUnread("the weights of " + graphName(g), {"optimizer.", "streams.", "rtrl."});
  return params;
}

SequenceBatch readData(PyGraph& g, const nb::dict& data, bool withTargets) {
  const TensorFile file = tensorFileFromDict(data, "data");
  SequenceBatch batch = batchFromTensorFile(g.compiled(), file, withTargets);
  file.rejectUnread("a data file for " + graphName(g));
  return batch;
}

nb::dict outputsDict(const CompiledPlan& plan, const std::vector<Tensor>& outputs) {
  nb::dict out;
  for (std::size_t o = 0; o < outputs.size(); ++o)
    out[plan.graph().layers[plan.outputLayers()[o]].id.c_str()] = toNumpy(outputs[o]);
  return out;
}

nb::dict gradientDict(const ParameterSet& gradients) {
  TensorMap tensors = gradientsToTensors(gradients, 0.0);
  tensors.erase("loss");
  return toDict(tensors);
}

nb::dict init(PyGraph& g, std::uint64_t seed) {
  nb::dict out;
  withGraphNames(&g.graph, [&] {
    const ParameterSet params = initParameters(g.compiled(), seed);
    out = toDict(parametersToTensors(params, true));
  });
  return out;
}

std::pair<double, nb::dict> grad(PyGraph& g, const nb::dict& weights, const nb::dict& data) {
  std::pair<double, nb::dict> result;
  withGraphNames(&g.graph, [&] {
    const ParameterSet params = readWeights(g, weights);
    const SequenceBatch batch = readData(g, data, true);
    ParameterSet gradients = ParameterSet::zerosLike(params);
    double loss = 0;
    {
      const nb::gil_scoped_release noGil;
      const std::lock_guard<std::mutex> lock(g.mutex);
      loss = g.cpu().forwardBackward(params, batch, {}, nullptr, &gradients);
    }
    if (!std::isfinite(loss) || !gradients.allFinite())
      throw std::runtime_error("the loss (" + std::to_string(loss) +
                               ") or a gradient is not finite");
    result = {loss, gradientDict(gradients)};
  });
  return result;
}

/// The forward of a graph the chunk engines do not compute (a 1-D graph that reads ahead, what
/// only version 2 has): the grid engine on the batch's N whole sequences, its outputs [t, size]
/// per sequence stacked back into [T, N, size].
double gridForward(const CompiledPlan& plan, const ParameterSet& params, const SequenceBatch& batch,
                   bool withTargets, std::vector<Tensor>& outputs) {
  const GridForward f = GridEngine(plan).forward(params, examplesFromSequences(batch), withTargets);
  for (std::size_t o = 0; o < plan.outputLayers().size(); ++o) {
    const std::int64_t size = plan.graph().layers[plan.outputLayers()[o]].size;
    Tensor stacked = Tensor::zerosF32({batch.frames, batch.streams, size});
    for (int n = 0; n < batch.streams; ++n)
      for (int t = 0; t < batch.frames; ++t)
        for (std::int64_t u = 0; u < size; ++u)
          stacked.f32()[(t * batch.streams + n) * size + u] = f.outputs[n][o].f32()[t * size + u];
    outputs.push_back(std::move(stacked));
  }
  return f.loss();
}

nb::tuple forward(PyGraph& g, const nb::dict& weights, const nb::dict& data) {
  nb::tuple result;
  withGraphNames(&g.graph, [&] {
    const ParameterSet params = readWeights(g, weights);
    const CompiledPlan& plan = g.compiled();
    bool withTargets = true;
    for (int l : plan.outputLayers())
      withTargets = withTargets && data.contains(targetKey(plan, l).c_str());
    const SequenceBatch batch = readData(g, data, withTargets);
    std::vector<Tensor> outputs;
    double loss = 0;
    {
      const nb::gil_scoped_release noGil;
      const std::lock_guard<std::mutex> lock(g.mutex);
      if (plan.needsWholeSequences() || !engineLimitations(plan).empty())
        loss = gridForward(plan, params, batch, withTargets, outputs);
      else
        loss = g.cpu().forward(params, batch, {}, nullptr, &outputs);
    }
    result = nb::make_tuple(withTargets ? nb::cast(loss) : nb::none(), outputsDict(plan, outputs));
  });
  return result;
}

nb::dict backwardFromOutputs(PyGraph& g, const nb::dict& weights, const nb::dict& data,
                             const nb::dict& outputGradients, bool inputGradients) {
  nb::dict result;
  withGraphNames(&g.graph, [&] {
    const ParameterSet params = readWeights(g, weights);
    const CompiledPlan& plan = g.compiled();
    const SequenceBatch batch = readData(g, data, false);
    const TensorFile given = tensorFileFromDict(outputGradients, "output gradients");
    std::vector<Tensor> grads;
    for (int l : plan.outputLayers()) grads.push_back(given.at(plan.graph().layers[l].id));
    given.rejectUnread("the output gradients of " + graphName(g));
    ParameterSet gradients = ParameterSet::zerosLike(params);
    std::vector<Tensor> inputs;
    {
      const nb::gil_scoped_release noGil;
      const std::lock_guard<std::mutex> lock(g.mutex);
      g.cpu().backwardFromOutputs(params, batch, {}, nullptr, grads, &gradients, nullptr,
                                  inputGradients ? &inputs : nullptr);
    }
    result = gradientDict(gradients);
    for (std::size_t i = 0; i < inputs.size(); ++i)  // under the data keys ('input[.<id>]')
      result[inputKey(plan, plan.inputLayers()[i]).c_str()] = toNumpy(inputs[i]);
  });
  return result;
}

}  // namespace

void bindNumbers(nb::module_& m, nb::class_<PyGraph>& cls) {
  cls.def("init", &init, nb::arg("seed") = 0,
          "Initial weights from the seed, with the masks of sparse connections "
          "('connections.<id>.mask'): the tensors `rnnwb init GRAPH --seed SEED` writes.")
      .def("grad", &grad, nb::arg("weights"), nb::arg("data"),
           "One forward and backward pass over the whole sequence of `data` (keys 'input[.<id>]' "
           "float32 [T, N, size], 'target[.<id>]'), as `rnnwb grad`: (summed loss, gradients "
           "under the weights' keys). The GIL is released while the engine runs.")
      .def("forward", &forward, nb::arg("weights"), nb::arg("data"),
           "The forward pass (the grid engine's where the graph reads ahead): (summed loss, or "
           "None when `data` has no targets, {output layer id: float32 [T, N, size]}). The GIL "
           "is released while the engine runs.")
      .def("backward_from_outputs", &backwardFromOutputs, nb::arg("weights"), nb::arg("data"),
           nb::arg("output_gradients"), nb::arg("input_gradients") = false,
           "The engine's BPTT from d(loss)/d(output) given from outside (an external loss): "
           "`output_gradients` maps each output layer id to float32 [T, N, size]; returns the "
           "gradients under the weights' keys, and with `input_gradients` those of the inputs "
           "under their data keys ('input[.<id>]', float32 [T, N, size]). `data` holds inputs "
           "only.");
  m.def(
      "read_safetensors",
      [](const std::string& path) {
        const TensorFile file = readSafetensors(path);
        nb::dict metadata;
        for (const auto& [k, v] : file.metadata) metadata[k.c_str()] = v;
        return nb::make_tuple(toDict(file.tensors), metadata);
      },
      nb::arg("path"), "Reads a safetensors file (F32 and I64): (tensors, metadata).");
  m.def(
      "write_safetensors",
      [](const std::string& path, const nb::dict& tensors, const nb::dict& metadata) {
        std::map<std::string, std::string> meta;
        for (auto [k, v] : metadata) meta[nb::cast<std::string>(k)] = nb::cast<std::string>(v);
        writeSafetensors(path, tensorFileFromDict(tensors, path).tensors, meta);
      },
      nb::arg("path"), nb::arg("tensors"), nb::arg("metadata") = nb::dict(),
      "Writes a safetensors file atomically, byte for byte as the CLI writes its files.");
}

}  // namespace rnnwb::python
