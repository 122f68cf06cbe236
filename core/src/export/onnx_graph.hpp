#pragma once
// An ONNX GraphProto under construction: nodes, initializers and constants with fresh names that
// stay unique across the model (a Scan body shares its names' space with the graph around it).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "onnx.pb.h"

namespace rnnwb::onnx_export {

/// The counter behind every fresh name of one model. Fresh names start with '/' (as PyTorch's
/// exporter's do) and the interface's hold a '.' (state.<id>, parameter keys) or are layer ids,
/// which hold neither: no name can be another's.
struct NameSource {
  int next = 0;
  std::string fresh(std::string_view hint) {
    return "/" + std::string(hint) + "_" + std::to_string(next++);
  }
};

struct IntAttribute {
  std::string name;
  std::int64_t value = 0;
};

class OnnxGraph {
 public:
  OnnxGraph(onnx::GraphProto& graph, NameSource& names) : m_graph(graph), m_names(names) {}

  onnx::GraphProto& proto() { return m_graph; }
  NameSource& names() { return m_names; }

  /// Adds a node with one output, named from `hint`, and returns that name.
  std::string node(std::string_view op, const std::vector<std::string>& inputs,
                   std::string_view hint, const std::vector<IntAttribute>& attributes = {});
  /// The same with the output's name given (a graph output, say).
  void nodeTo(std::string_view op, const std::vector<std::string>& inputs,
              const std::string& output, const std::vector<IntAttribute>& attributes = {});
  /// A node with any outputs, for the caller to add attributes to (Scan's body graph).
  onnx::NodeProto& rawNode(std::string_view op, const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs);

  /// A float initializer under exactly `name` (kept once: a second call with it returns it).
  std::string floats(const std::string& name, const std::vector<std::int64_t>& dims,
                     const std::vector<float>& values);
  /// A fresh int64 initializer.
  std::string int64s(std::string_view hint, const std::vector<std::int64_t>& values,
                     bool scalar = false);

  void addInput(const std::string& name, const std::vector<std::string>& dims);
  void addOutput(const std::string& name, const std::vector<std::string>& dims);

 private:
  onnx::GraphProto& m_graph;
  NameSource& m_names;
  std::vector<std::string> m_floatNames;
};

/// Throws std::logic_error naming a value defined twice in `graph` or its Scan bodies (by two
/// nodes, inputs or initializers): the exporter's invariant, checked before a model is written. An
/// input with an initializer of its name is a default, not a second definition.
void checkUniqueNames(const onnx::GraphProto& graph);

/// Dims of a value's type: a number is a fixed size, a name a symbolic one, "" unknown.
void setTensorType(onnx::ValueInfoProto& info, const std::vector<std::string>& dims);

}  // namespace rnnwb::onnx_export
