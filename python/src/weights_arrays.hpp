#pragma once
// Weights between dicts of NumPy arrays and a ParameterSet, for the calls that run the engine
// once per call (grad, forward, the torch module's steps). The dict `init()` gives (the plan's
// keys, float32 C-contiguous arrays of their shapes, no masks) is copied straight into a set of
// the plan's layout: no TensorFile, no layout rebuilt per call. Anything else (other dtypes,
// masks, checkpoints, wrong keys or shapes) goes through the file readers, so that it is
// converted, read and refused exactly as `rnnwb grad` reads a weights file. Gradients go back as
// views into one block that the arrays own together: no copy on the way out.
#include <string_view>
#include <unordered_map>
#include <vector>

#include "convert.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::python {

struct PyGraph;

/// The plan's parameter keys, made once per graph (a graph object never changes: an edit makes
/// a new one).
struct WeightKeys {
  explicit WeightKeys(const CompiledPlan& plan);

  /// How one gradient array is cut from the block: made once, as Python objects, because
  /// making a NumPy array per tensor through nanobind was most of a small graph's overhead.
  struct GradientCut {
    nb::str key;
    nb::object slice;  // the view's elements of the flat block
    nb::object shape;  // a tuple to reshape to, or None for a 1-D view
  };

  ParameterSet zeros;  // the plan's layout and masks, every value 0
  std::unordered_map<std::string_view, const ParameterView*> byKey;  // keys live in zeros' layout
  std::vector<GradientCut> gradientCuts;  // trainable views, by key (the files' order)
};

/// The weights of `g` from {key: array}, as `rnnwb grad` reads a weights file (its messages).
ParameterSet weightsFromDict(PyGraph& g, const nb::dict& weights);
/// {key: float32 array} of the gradients of the trainable tensors, in key order; the arrays are
/// views into `gradients`' one block, which they keep alive.
nb::dict gradientArrays(const WeightKeys& keys, ParameterSet gradients);

}  // namespace rnnwb::python
