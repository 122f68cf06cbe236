#pragma once
// The arrays of the calls that run the engine once per call (grad, forward, the torch module's
// steps): weights and [T, N, size] data in, gradients out. What `init()` gives and NumPy's own
// float32 / int64 C-contiguous arrays are copied straight into the engine's structures (no
// TensorFile, no layout or key strings made per call); anything else (other dtypes, masks,
// checkpoints, wrong keys or shapes, numbered examples) goes through the file readers, so that it
// is converted, read and refused exactly as `rnnwb grad` reads its files. Gradients go back as
// views into one block that the arrays own together: no copy on the way out.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "convert.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/engine/sequence_batch.hpp"

namespace rnnwb::python {

struct PyGraph;

/// The plan's parameter and data keys, made once per graph (a graph object never changes: an
/// edit makes a new one).
struct CallKeys {
  explicit CallKeys(const CompiledPlan& plan);

  /// How one gradient array is cut from the block: made once, as Python objects, because
  /// making a NumPy array per tensor through nanobind was most of a small graph's overhead.
  struct GradientCut {
    nb::str key;
    nb::object slice;  // the view's elements of the flat block
    nb::object shape;  // a tuple to reshape to, or None for a 1-D view
  };

  const CompiledPlan& plan;
  nb::str reshape;  // the method's name, made once
  ParameterSet zeros;  // the plan's layout and masks, every value 0
  std::unordered_map<std::string_view, const ParameterView*> byKey;  // keys live in zeros' layout
  std::vector<GradientCut> gradientCuts;           // trainable views, by key (the files' order)
  std::vector<std::string> inputKeys, targetKeys;  // by plan.inputLayers() / outputLayers()
  bool chunkEngine = false;  // [T, N, size] data runs on the chunk engine (needsGridEngine)
};

/// The weights of `g` from {key: array}, as `rnnwb grad` reads a weights file (its messages).
ParameterSet weightsFromDict(PyGraph& g, const nb::dict& weights);
/// The batch of a dict that holds exactly the plan's [T, N, size] inputs and, with
/// `withTargets`, its targets, as NumPy arrays the engine takes as they are, for the chunk
/// engine; nothing otherwise (the file path then reads the dict and names what is wrong).
std::optional<SequenceBatch> copiedBatch(const CallKeys& keys, const nb::dict& data,
                                         bool withTargets);
/// {key: float32 array} of the gradients of the trainable tensors, in key order; the arrays are
/// views into `gradients`' one block, which they keep alive.
nb::dict gradientArrays(const CallKeys& keys, ParameterSet gradients);

}  // namespace rnnwb::python
