#pragma once
// The grid engine's numbers for rnnwb.Graph (bind_grid.cpp): what bind_numbers.cpp hands over
// when needsGridEngine() (engine_support.hpp) says the data goes there, as `rnnwb grad` does.
// Each locks the graph's mutex and releases the GIL while the engine runs.
#include <nanobind/nanobind.h>

#include <string>

#include "py_graph.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/safetensors.hpp"

namespace rnnwb::python {

namespace nb = nanobind;

/// The summed loss; the gradients added into `gradients`.
double gridGrad(PyGraph& g, const ParameterSet& params, const TensorFile& data,
                const std::string& packer, ParameterSet& gradients);
/// (summed loss or None, outputs): a list of {output id: array} per example for numbered data,
/// else {output id: [T, N, size]}.
nb::tuple gridForward(PyGraph& g, const ParameterSet& params, const TensorFile& data,
                      bool withTargets, const std::string& packer);
/// The external loss: `outputGradients` as gridForward gives the outputs. Returns None, or with
/// `inputGradients` d(loss)/d(input) as gridForward gives outputs, by the inputs' data keys.
nb::object gridBackwardFromOutputs(PyGraph& g, const ParameterSet& params, const TensorFile& data,
                                   const nb::handle& outputGradients, bool inputGradients,
                                   const std::string& packer, ParameterSet& gradients);

}  // namespace rnnwb::python
