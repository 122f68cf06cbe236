// ONNX models as graphs (rnnwb/core/onnx_import.hpp): the model's inputs become input layers,
// its nodes are read in their (topological) order by the operator readers, its outputs become
// output layers, and the graph is validated before it is handed back.
#include "rnnwb/core/onnx_import.hpp"

#include <algorithm>
#include <cctype>

#include "import_context.hpp"
#include "onnx_protos.hpp"
#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/graph_validator.hpp"

namespace rnnwb {

namespace onnx_import {

namespace {

onnx::ModelProto parseModel(std::string_view bytes, const std::string& origin) {
  onnx::ModelProto model;
  if (bytes.size() > kOnnxModelLimit)
    throw std::runtime_error(origin + ": the ONNX model is larger than " +
                             std::to_string(kOnnxModelLimit >> 20) + ".0 MiB (the limit for it)");
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) || !model.has_graph() ||
      model.graph().node_size() == 0)
    throw std::runtime_error(origin + ": not an ONNX model (" +
                             (bytes.empty() ? std::string("the file is empty")
                                            : "no ModelProto with a graph of nodes parses") +
                             ")");
  return model;
}

int defaultOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") return static_cast<int>(o.version());
  return 1;
}

void readInputs(ImportContext& c, const onnx::GraphProto& graph) {
  for (const onnx::TensorProto& t : graph.initializer()) {
    try {
      c.values[t.name()] = constantValue(onnx_import::tensorFromProto(t), "initializer");
    } catch (const std::invalid_argument& e) {
      throw ImportError(c.origin + ": " + e.what());
    }
  }
  for (const onnx::ValueInfoProto& input : graph.input()) {
    if (c.values.count(input.name())) continue;  // an initializer listed as an input too
    const auto& type = input.type().tensor_type();
    const auto& dims = type.shape().dim();
    if (type.elem_type() != onnx::TensorProto::FLOAT || dims.size() != 3 ||
        !dims[2].has_dim_value())
      throw ImportError(c.origin + ": input '" + input.name() + "' is not a float tensor [T, N, " +
                        "size] of a known size, which is how the importer reads every input");
    const int layer =
        c.builder.addLayer(input.name(), LayerKind::Input, static_cast<int>(dims[2].dim_value()));
    c.values[input.name()] = sequenceValue(onnx_import::flatSequence(c.builder.unitsOf(layer)),
                                           "input '" + input.name() + "'");
  }
}

void countUses(ImportContext& c, const onnx::GraphProto& graph) {
  for (const onnx::NodeProto& node : graph.node())
    for (const std::string& name : node.input()) ++c.uses[name];
  for (const onnx::ValueInfoProto& output : graph.output()) ++c.uses[output.name()];
}

void readNode(ImportContext& c, const onnx::NodeProto& node) {
  c.node = &node;
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    c.fail("operator domain '" + node.domain() + "' is not ONNX's own");
  try {
    if (importRecurrent(c) || importMath(c) || importGlue(c)) return;
  } catch (const ImportError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    c.fail(e.what());
  }
  c.fail("operator " + node.op_type() +
         " is not one the importer maps (docs/interop.md lists "
         "what it reads)");
}

/// Output `name` as an output layer: the layer itself where the output is one whole layer,
/// else a new layer that selects the output's units.
void readOutput(ImportContext& c, const std::string& name) {
  const Value& v = c.values.at(name);
  if (v.kind == Value::Kind::LastState)
    throw ImportError(c.origin + ": output '" + name + "' is the last state of " + v.from +
                      ": a graph's outputs are sequences (leave the state out of the model)");
  if (v.kind != Value::Kind::Sequence || !v.sequence.isFlat())
    throw ImportError(c.origin + ": output '" + name + "' is not a [T, N, features] sequence" +
                      (v.kind == Value::Kind::Sequence ? " (it is " + v.sequence.describe() + ")"
                                                       : std::string()));
  GraphBuilder& b = c.builder;
  const std::vector<Unit>& units = v.sequence.units;
  int layer = units.front().layer;
  if (units == b.unitsOf(layer) && !b.layer(layer).isInput() && !b.layer(layer).isOutput()) {
    b.renameLayer(layer, name);
  } else {
    for (const Unit& u : units)
      if (b.layer(u.layer).activation == Activation::Softmax)
        throw ImportError(c.origin + ": output '" + name + "' is a part of softmax layer '" +
                          b.layer(u.layer).id + "'");
    layer = b.addLayer(name, LayerKind::Additive, static_cast<int>(units.size()));
    b.connectSelection(units, layer);
  }
  Layer& l = b.layer(layer);
  l.loss = l.activation == Activation::Softmax ? LossKind::CrossEntropy : LossKind::Mse;
}

}  // namespace

}  // namespace onnx_import

OnnxImport importOnnx(std::string_view bytes, const std::string& origin) {
  using namespace onnx_import;
  const onnx::ModelProto model = parseModel(bytes, origin);
  const onnx::GraphProto& graph = model.graph();
  ImportContext c;
  c.origin = origin;
  c.opset = defaultOpset(model);
  readInputs(c, graph);
  countUses(c, graph);
  for (const onnx::NodeProto& node : graph.node()) readNode(c, node);
  for (const onnx::ValueInfoProto& output : graph.output()) readOutput(c, output.name());
  OnnxImport result = c.builder.finish(graph.name().empty() ? "imported" : graph.name());
  std::string problems;
  for (const Diagnostic& d : validateGraph(result.graph)) problems += "\n  " + d.message;
  if (!problems.empty())
    throw std::invalid_argument(origin + ": the imported graph is not valid:" + problems);
  return result;
}

OnnxImport importOnnxFile(const std::filesystem::path& path) {
  const std::string bytes = readFileBounded(path, kOnnxModelLimit, "the ONNX model");
  OnnxImport result = importOnnx(bytes, path.string());
  std::string stem = path.stem().string();
  std::string name;
  for (char ch : stem) name += std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' ? ch : '_';
  result.graph.name = name.empty() ? result.graph.name : name;
  return result;
}

}  // namespace rnnwb
