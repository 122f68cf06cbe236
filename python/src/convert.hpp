#pragma once
// Between NumPy arrays (nanobind ndarrays) and the engine's Tensors and safetensors maps. Arrays
// are copied both ways: a Tensor owns its values, and the arrays handed to Python own theirs.
// (The weights and gradients of the per-call functions take a shorter way: call_arrays.hpp.)
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <nlohmann/json.hpp>

#include "rnnwb/core/safetensors.hpp"
#include "rnnwb/core/tensor.hpp"

namespace rnnwb::python {

namespace nb = nanobind;

/// A float32 or int64 NumPy array with the tensor's shape and values.
nb::object toNumpy(const Tensor& tensor);
/// A C-contiguous float32 or int64 array as a Tensor; throws std::invalid_argument naming `what`
/// for another dtype (the Python layer converts what NumPy can convert before it gets here).
Tensor fromArray(const nb::handle& array, const std::string& what);
/// {key: array} as a TensorFile named `origin` in messages (as the CLI names its files).
TensorFile tensorFileFromDict(const nb::dict& arrays, const std::string& origin);
/// As tensorFileFromDict, for a dict whose arrays may need NumPy's conversions first (lists,
/// float64, strided arrays): those are converted as the Python layer's `_arrays` converts them.
/// The arrays that are float32/int64 and C-contiguous already cost no conversion.
TensorFile convertedTensorFile(const nb::dict& arrays, const std::string& origin);
/// {key: array} of a TensorMap.
nb::dict toDict(const TensorMap& tensors);
/// A Python object (dict, list, str, number, bool, None) as JSON, and back.
nlohmann::json toJson(const nb::handle& value);
nb::object fromJson(const nlohmann::json& value);

}  // namespace rnnwb::python
