#pragma once
// A trained graph as an ONNX model (docs/interop.md): the forward of the op program
// (engine/op_program.hpp) bound to ONNX operators, opset 17. Plain nodes become batched operators
// over all frames; each recurrent node a Scan whose body holds its ops for one frame and carries
// the last frames that its delayed connections read. Losses and the backward are left out; a
// cross-entropy output gives its softmax probabilities.
// (A graph that reads ahead has only the layer inputs and outputs: see exportOnnx.)
//
// The model's interface, all float32:
//   inputs   <layer id>              [T, N, size] per input layer
//            state.<layer id>        [d, N, size] the layer's last d frames of the previous chunk,
//                                    for every layer some connection reads d >= 1 frames back;
//                                    optional (zeros when left out: the start of a sequence)
//   outputs  <layer id>              [T, N, size] per output layer
//            state.<layer id>.next   [d, N, size] what to pass as state.<layer id> next chunk
#include <string>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb {

/// The serialized ModelProto of `plan` with the values of `parameters` (masks applied) as its
/// initializers. Throws std::invalid_argument naming what it cannot export: a 2-D graph, the ctc
/// loss, and whatever else the engines cannot compute (engine_support.hpp). A graph that reads
/// ahead (a negative delay) exports for whole sequences: no state inputs or outputs, and a
/// reversed Scan for each node that scans backward in time. Built where protobuf is found (library rnnwb_export, RNNWB_HAVE_ONNX).
std::string exportOnnx(const CompiledPlan& plan, const ParameterSet& parameters);

}  // namespace rnnwb
