#pragma once
// ONNX models of recurrent layers as graphs (docs/interop.md, "Import"): ONNX's LSTM, GRU and RNN
// operators (any direction, any number of them, stacked) become the graph's additive and
// multiplicative layers with delayed connections (a backward direction reads ahead: delay -1 of
// graph format v2), MatMul, Add, Sub, Mul and the activations around them become layers and
// connections, and the glue that exporters put around recurrent operators (Squeeze, Unsqueeze,
// Transpose, Reshape, Concat of directions, Shape/Gather/ConstantOfShape/Expand for zero initial
// states, Constant, Identity, Slice, ...) is read for what it does to the features. Anything else
// is refused, naming the node and its operator.
//
// The model's inputs are read as [T, N, size] (frames, streams, features), the graph's own
// convention; each becomes an input layer. Each model output becomes an output layer: softmax
// with the cross_entropy loss where the model ends in a Softmax, mse otherwise.
#include <filesystem>
#include <string>
#include <string_view>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/safetensors.hpp"

namespace rnnwb {

struct OnnxImport {
  Graph graph;        // valid (validateGraph finds nothing); version 2 where it reads ahead
  TensorMap weights;  // under the graph's parameter keys: connections.<id>.weight, layers.<id>.bias
};

/// Imports the serialized ModelProto `bytes`; `origin` (the file) starts every message. Throws
/// std::invalid_argument "ORIGIN: node 'NAME' (OP): WHY" for what it cannot import, and
/// std::runtime_error "ORIGIN: not an ONNX model (...)" for bytes that do not parse.
OnnxImport importOnnx(std::string_view bytes, const std::string& origin);

/// Reads `path` (at most kOnnxModelLimit bytes, bounded_read.hpp: a larger file is refused
/// naming the limit) and imports it; the graph is named after the file's stem (importOnnx names
/// it after the model's graph).
OnnxImport importOnnxFile(const std::filesystem::path& path);

}  // namespace rnnwb
