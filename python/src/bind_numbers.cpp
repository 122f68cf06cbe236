// The numbers of a graph: initial weights (rnnwb init), gradients (rnnwb grad), the forward
// outputs, and the backward from gradients of the outputs given from outside (rnnwb.torch).
// Weights and data are dicts of arrays under the keys of graph-format.md's files, read with the
// same functions and messages as the CLI's files (named "weights" and "data" here). Data goes to
// the chunk engine or to the grid engine (bind_grid.cpp) by the CLI's rule (needsGridEngine).
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <optional>

#include "bindings.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "grid_numbers.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::python {

namespace {

SequenceBatch readData(PyGraph& g, const TensorFile& file, bool withTargets) {
  SequenceBatch batch = batchFromTensorFile(g.compiled(), file, withTargets);
  file.rejectUnread("a data file for " + g.name());
  return batch;
}

nb::dict outputsDict(const CompiledPlan& plan, const std::vector<Tensor>& outputs) {
  nb::dict out;
  for (std::size_t o = 0; o < outputs.size(); ++o)
    out[plan.graph().layers[plan.outputLayers()[o]].id.c_str()] = toNumpy(outputs[o]);
  return out;
}

nb::dict gradientDict(PyGraph& g, ParameterSet&& gradients) {
  return gradientArrays(g.callKeys(), std::move(gradients));
}

nb::dict init(PyGraph& g, std::uint64_t seed) {
  nb::dict out;
  withGraphNames(&g.graph, [&] {
    const ParameterSet params = initParameters(g.compiled(), seed);
    out = toDict(parametersToTensors(params, true));
  });
  return out;
}

void requireFinite(double loss, const ParameterSet& gradients) {
  if (!std::isfinite(loss) || !gradients.allFinite())
    throw std::runtime_error("the loss (" + std::to_string(loss) + ") or a gradient is not finite");
}

std::pair<double, nb::dict> grad(PyGraph& g, const nb::dict& weights, const nb::dict& data,
                                 const std::string& packer) {
  std::pair<double, nb::dict> result;
  withGraphNames(&g.graph, [&] {
    const ParameterSet params = weightsFromDict(g, weights);
    ParameterSet gradients = ParameterSet::zerosLike(params);
    double loss = 0;
    std::optional<SequenceBatch> batch = copiedBatch(g.callKeys(), data, true);
    if (!batch) {  // numbered examples, conversions, or a problem the file reader names
      const TensorFile file = convertedTensorFile(data, "data");
      if (needsGridEngine(g.compiled(), file))
        loss = gridGrad(g, params, file, packer, gradients);
      else
        batch = readData(g, file, true);
    }
    if (batch) {
      const nb::gil_scoped_release noGil;
      const std::lock_guard<std::mutex> lock(g.mutex);
      const EngineClock clock(g.lastEngineSeconds);
      loss = g.cpu().forwardBackward(params, *batch, {}, nullptr, &gradients);
    }
    requireFinite(loss, gradients);
    result = {loss, gradientDict(g, std::move(gradients))};
  });
  return result;
}

nb::tuple forward(PyGraph& g, const nb::dict& weights, const nb::dict& data,
                  const std::string& packer) {
  nb::tuple result;
  withGraphNames(&g.graph, [&] {
    const ParameterSet params = weightsFromDict(g, weights);
    const CompiledPlan& plan = g.compiled();
    const TensorFile file = convertedTensorFile(data, "data");
    bool withTargets = false;  // every output's targets, or none (only the inputs are read)
    for (const auto& [key, tensor] : file.tensors) withTargets |= key.rfind("target", 0) == 0;
    if (needsGridEngine(plan, file)) {
      result = gridForward(g, params, file, withTargets, packer);
      return;
    }
    const SequenceBatch batch = readData(g, file, withTargets);
    std::vector<Tensor> outputs;
    double loss = 0;
    {
      const nb::gil_scoped_release noGil;
      const std::lock_guard<std::mutex> lock(g.mutex);
      loss = g.cpu().forward(params, batch, {}, nullptr, &outputs);
    }
    result = nb::make_tuple(withTargets ? nb::cast(loss) : nb::none(), outputsDict(plan, outputs));
  });
  return result;
}

/// Input gradients per example ({data key: array} each) under the numbered keys of a data file.
void addNumbered(nb::dict& result, const nb::list& examples) {
  for (std::size_t k = 0; k < examples.size(); ++k)
    for (auto [key, value] : nb::cast<nb::dict>(examples[k]))
      result[(nb::cast<std::string>(key) + "." + std::to_string(k)).c_str()] = value;
}

nb::dict backwardFromOutputs(PyGraph& g, const nb::dict& weights, const nb::dict& data,
                             const nb::object& outputGradients, bool inputGradients,
                             const std::string& packer) {
  nb::dict result;
  withGraphNames(&g.graph, [&] {
    const ParameterSet params = weightsFromDict(g, weights);
    const CompiledPlan& plan = g.compiled();
    const TensorFile file = convertedTensorFile(data, "data");
    ParameterSet gradients = ParameterSet::zerosLike(params);
    if (needsGridEngine(plan, file)) {
      const nb::object inputs = gridBackwardFromOutputs(g, params, file, outputGradients,
                                                        inputGradients, packer, gradients);
      result = gradientDict(g, std::move(gradients));
      if (nb::isinstance<nb::list>(inputs)) addNumbered(result, nb::cast<nb::list>(inputs));
      if (nb::isinstance<nb::dict>(inputs))
        for (auto [key, value] : nb::cast<nb::dict>(inputs)) result[key] = value;
      return;
    }
    const SequenceBatch batch = readData(g, file, false);
    const TensorFile given =
        tensorFileFromDict(nb::cast<nb::dict>(outputGradients), "output gradients");
    std::vector<Tensor> grads;
    for (int l : plan.outputLayers()) grads.push_back(given.at(plan.graph().layers[l].id));
    given.rejectUnread("the output gradients of " + g.name());
    std::vector<Tensor> inputs;
    {
      const nb::gil_scoped_release noGil;
      const std::lock_guard<std::mutex> lock(g.mutex);
      g.cpu().backwardFromOutputs(params, batch, {}, nullptr, grads, &gradients, nullptr,
                                  inputGradients ? &inputs : nullptr);
    }
    result = gradientDict(g, std::move(gradients));
    for (std::size_t i = 0; i < inputs.size(); ++i)  // under the data keys ('input[.<id>]')
      result[inputKey(plan, plan.inputLayers()[i]).c_str()] = toNumpy(inputs[i]);
  });
  return result;
}

/// GraphModule's forward: the engine's forward kept for the backward that follows
/// (CpuBackend::keepForward). Returns (outputs by output layer id, the run's number), or for
/// data of the grid engine (outputs as forward() gives them, None).
nb::tuple forwardKept(PyGraph& g, const nb::dict& weights, const nb::dict& data,
                      bool inputGradients, const std::string& packer) {
  nb::tuple result;
  withGraphNames(&g.graph, [&] {
    auto params = std::make_unique<ParameterSet>(weightsFromDict(g, weights));
    const TensorFile file = convertedTensorFile(data, "data");
    if (needsGridEngine(g.compiled(), file)) {  // the grid engine keeps nothing: no run
      result = nb::make_tuple(gridForward(g, *params, file, false, packer)[1], nb::none());
      return;
    }
    auto batch = std::make_unique<SequenceBatch>(readData(g, file, false));
    std::vector<Tensor> outputs;
    std::uint64_t run = 0;
    {
      const nb::gil_scoped_release noGil;
      const std::lock_guard<std::mutex> lock(g.mutex);
      run = g.cpu().keepForward(*params, *batch, &outputs, inputGradients);
      g.keptParams = std::move(params);
      g.keptBatch = std::move(batch);
    }
    result = nb::make_tuple(outputsDict(g.compiled(), outputs), run);
  });
  return result;
}

/// The backward of kept forward `run`: the gradients as backward_from_outputs gives them, or
/// None when the engine has computed something else since (the caller then runs
/// backward_from_outputs).
nb::object backwardKept(PyGraph& g, std::uint64_t run, const nb::dict& outputGradients,
                        bool inputGradients) {
  nb::object result = nb::none();
  withGraphNames(&g.graph, [&] {
    const CompiledPlan& plan = g.compiled();
    const TensorFile given = tensorFileFromDict(outputGradients, "output gradients");
    std::vector<Tensor> grads;
    for (int l : plan.outputLayers()) grads.push_back(given.at(plan.graph().layers[l].id));
    given.rejectUnread("the output gradients of " + g.name());
    std::vector<Tensor> inputs;
    std::unique_ptr<ParameterSet> gradients;
    {
      const nb::gil_scoped_release noGil;
      const std::lock_guard<std::mutex> lock(g.mutex);
      if (!g.keptParams) return;
      gradients = std::make_unique<ParameterSet>(ParameterSet::zerosLike(*g.keptParams));
      try {
        g.cpu().backwardFromKeptForward(run, grads, *gradients, inputGradients ? &inputs : nullptr);
      } catch (const std::logic_error& e) {
        if (dynamic_cast<const std::invalid_argument*>(&e)) throw;
        return;  // not the engine's last computation any more
      }
    }
    nb::dict out = gradientDict(g, std::move(*gradients));
    for (std::size_t i = 0; i < inputs.size(); ++i)
      out[inputKey(plan, plan.inputLayers()[i]).c_str()] = toNumpy(inputs[i]);
    result = out;
  });
  return result;
}

}  // namespace

void bindNumbers(nb::module_& m, nb::class_<PyGraph>& cls) {
  cls.def("init", &init, nb::arg("seed") = 0,
          "Initial weights from the seed, with the masks of sparse connections "
          "('connections.<id>.mask'): the tensors `rnnwb init GRAPH --seed SEED` writes.")
      .def("grad", &grad, nb::arg("weights"), nb::arg("data"), nb::arg("packer") = "shelf",
           "One forward and backward pass over the whole of `data` (a data file's keys: "
           "'input[.<id>]' float32 [T, N, size] and 'target[.<id>]', or numbered examples "
           "'input[.<id>].<k>', 'target[.<id>].<k>'), as `rnnwb grad --packer PACKER`: (summed "
           "loss, gradients under the weights' keys). The GIL is released while the engine runs.")
      .def("forward", &forward, nb::arg("weights"), nb::arg("data"), nb::arg("packer") = "shelf",
           "The forward pass (the grid engine's where the graph reads ahead): (summed loss, or "
           "None when `data` has no targets, the outputs): {output layer id: float32 [T, N, "
           "size]}, or for numbered examples a list of {output layer id: float32 [h, w, size] or "
           "[t, size]} per example. The GIL is released while the engine runs.")
      .def("backward_from_outputs", &backwardFromOutputs, nb::arg("weights"), nb::arg("data"),
           nb::arg("output_gradients"), nb::arg("input_gradients") = false,
           nb::arg("packer") = "shelf",
           "The engine's BPTT from d(loss)/d(output) given from outside (an external loss): "
           "`output_gradients` as forward() gives the outputs (a dict by output layer id, or a "
           "list of them per example); returns the gradients under the weights' keys, and with "
           "`input_gradients` those of the inputs under their data keys ('input[.<id>]' "
           "[T, N, size], or 'input[.<id>].<k>' per example). `data` holds inputs only.");
  cls.def_ro("_last_engine_seconds", &PyGraph::lastEngineSeconds,
             "The seconds of the engine's forward and backward in the last grad call "
             "(tests/bench/bench_grad_overhead.py: the call's overhead is the rest).");
  cls.def("forward_kept", &forwardKept, nb::arg("weights"), nb::arg("data"),
          nb::arg("input_gradients") = false, nb::arg("packer") = "shelf",
          "The forward of [T, N, size] inputs kept in the engine for one backward_kept "
          "(rnnwb.torch.GraphModule: no second forward in its backward): ({output layer id: "
          "float32 [T, N, size]}, the run's number); for data of the grid engine, which keeps "
          "nothing, (the outputs, None).")
      .def("backward_kept", &backwardKept, nb::arg("run"), nb::arg("output_gradients"),
           nb::arg("input_gradients") = false,
           "The backward of kept forward `run` from d(loss)/d(output), as backward_from_outputs "
           "gives it (the same floats); None when the engine has computed anything since.");
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
