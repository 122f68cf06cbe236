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
#include <utility>
#include <vector>

#include <numpy/npy_common.h>

#include "convert.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/engine/sequence_batch.hpp"

namespace rnnwb::python {

struct PyGraph;

/// The plan's parameter and data keys, made once per graph (a graph object never changes: an
/// edit makes a new one).
struct CallKeys {
  explicit CallKeys(const CompiledPlan& plan);

  /// Where one gradient array lies in the block and its shape, made once per graph.
  struct GradientCut {
    nb::str key;
    std::size_t offset = 0;       // of the view's first element in the flat block
    std::vector<npy_intp> shape;  // the view's extents
  };

  const CompiledPlan& plan;
  ParameterSet zeros;  // the plan's layout and masks, every value 0
  // Every view's key as a str made once (its hash kept), in the layout's order.
  std::vector<std::pair<nb::str, const ParameterView*>> weightKeys;
  std::vector<GradientCut> gradientCuts;       // trainable views, by key (the files' order)
  std::vector<nb::str> inputKeys, targetKeys;  // by plan.inputLayers() / outputLayers()
  bool chunkEngine = false;  // [T, N, size] data runs on the chunk engine (needsGridEngine)
};

/// Loads NumPy's C API table (the module's first step: every function here uses it).
void importNumpyApi();
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
