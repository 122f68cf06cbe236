// OnnxGraph (onnx_graph.hpp): the protobuf calls in one place.
#include "onnx_graph.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace rnnwb::onnx_export {

namespace {

void addAttributes(onnx::NodeProto& node, const std::vector<IntAttribute>& attributes) {
  for (const IntAttribute& a : attributes) {
    onnx::AttributeProto* attribute = node.add_attribute();
    attribute->set_name(a.name);
    attribute->set_type(onnx::AttributeProto::INT);
    attribute->set_i(a.value);
  }
}

void collectDefinitions(const onnx::GraphProto& graph, std::set<std::string>& defined) {
  const auto define = [&](const std::string& name) {
    if (!defined.insert(name).second)
      throw std::logic_error("ONNX export: the value '" + name + "' is defined twice");
  };
  std::set<std::string> inputs;
  for (const onnx::ValueInfoProto& input : graph.input()) {
    define(input.name());
    inputs.insert(input.name());
  }
  for (const onnx::TensorProto& initializer : graph.initializer())
    if (!inputs.count(initializer.name())) define(initializer.name());
  for (const onnx::NodeProto& node : graph.node()) {
    for (const std::string& output : node.output()) define(output);
    for (const onnx::AttributeProto& attribute : node.attribute())
      if (attribute.has_g()) collectDefinitions(attribute.g(), defined);
  }
}

}  // namespace

void checkUniqueNames(const onnx::GraphProto& graph) {
  std::set<std::string> defined;
  collectDefinitions(graph, defined);
}

onnx::NodeProto& OnnxGraph::rawNode(std::string_view op, const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& outputs) {
  onnx::NodeProto& node = *m_graph.add_node();
  node.set_op_type(std::string(op));
  node.set_name(m_names.fresh(op));
  for (const std::string& input : inputs) node.add_input(input);
  for (const std::string& output : outputs) node.add_output(output);
  return node;
}

std::string OnnxGraph::node(std::string_view op, const std::vector<std::string>& inputs,
                            std::string_view hint, const std::vector<IntAttribute>& attributes) {
  std::string output = m_names.fresh(hint);
  nodeTo(op, inputs, output, attributes);
  return output;
}

void OnnxGraph::nodeTo(std::string_view op, const std::vector<std::string>& inputs,
                       const std::string& output, const std::vector<IntAttribute>& attributes) {
  addAttributes(rawNode(op, inputs, {output}), attributes);
}

std::string OnnxGraph::floats(const std::string& name, const std::vector<std::int64_t>& dims,
                              const std::vector<float>& values) {
  const auto known = std::find(m_floatNames.begin(), m_floatNames.end(), name);
  if (known != m_floatNames.end()) return *known;
  onnx::TensorProto& tensor = *m_graph.add_initializer();
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  for (std::int64_t d : dims) tensor.add_dims(d);
  // raw_data is little-endian, as the floats of every machine this project builds on.
  tensor.set_raw_data(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  m_floatNames.push_back(name);
  return name;
}

std::string OnnxGraph::int64s(std::string_view hint, const std::vector<std::int64_t>& values,
                              bool scalar) {
  std::string name = m_names.fresh(hint);
  onnx::TensorProto& tensor = *m_graph.add_initializer();
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::INT64);
  if (!scalar) tensor.add_dims(static_cast<std::int64_t>(values.size()));
  for (std::int64_t v : values) tensor.add_int64_data(v);
  return name;
}

void setTensorType(onnx::ValueInfoProto& info, const std::vector<std::string>& dims) {
  onnx::TypeProto_Tensor& tensor = *info.mutable_type()->mutable_tensor_type();
  tensor.set_elem_type(onnx::TensorProto::FLOAT);
  onnx::TensorShapeProto& shape = *tensor.mutable_shape();
  for (const std::string& d : dims) {
    onnx::TensorShapeProto_Dimension& dim = *shape.add_dim();
    if (d.empty()) continue;
    if (std::isdigit(static_cast<unsigned char>(d.front())))
      dim.set_dim_value(std::stoll(d));
    else
      dim.set_dim_param(d);
  }
}

void OnnxGraph::addInput(const std::string& name, const std::vector<std::string>& dims) {
  onnx::ValueInfoProto& info = *m_graph.add_input();
  info.set_name(name);
  setTensorType(info, dims);
}

void OnnxGraph::addOutput(const std::string& name, const std::vector<std::string>& dims) {
  onnx::ValueInfoProto& info = *m_graph.add_output();
  info.set_name(name);
  setTensorType(info, dims);
}

}  // namespace rnnwb::onnx_export
