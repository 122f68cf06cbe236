// The ONNX importer (rnnwb/core/onnx_import.hpp) on hand-built ModelProtos: a reverse RNN is one
// layer reading itself one frame ahead (version 2), with ONNX's weights and the summed biases,
// named after the model's output; what it does not map is refused naming the node and its
// operator; a non-zero initial state (zeros are fine) and bytes that are not a model by name.
#include <QTest>

#include <stdexcept>

#include "onnx.pb.h"
#include "rnnwb/core/onnx_import.hpp"

using namespace rnnwb;

namespace {

void addFloats(onnx::GraphProto& g, const std::string& name, std::vector<std::int64_t> dims,
               std::vector<float> values) {
  onnx::TensorProto& t = *g.add_initializer();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t.add_dims(d);
  for (float v : values) t.add_float_data(v);
}

void addValue(onnx::ValueInfoProto& v, const std::string& name, int features) {
  v.set_name(name);
  auto& shape = *v.mutable_type()->mutable_tensor_type();
  shape.set_elem_type(onnx::TensorProto::FLOAT);
  shape.mutable_shape()->add_dim()->set_dim_param("T");
  shape.mutable_shape()->add_dim()->set_dim_param("N");
  shape.mutable_shape()->add_dim()->set_dim_value(features);
}

onnx::NodeProto& addNode(onnx::GraphProto& g, const std::string& op, const std::string& name,
                         std::vector<std::string> inputs, std::vector<std::string> outputs) {
  onnx::NodeProto& n = *g.add_node();
  n.set_op_type(op);
  n.set_name(name);
  for (auto& i : inputs) n.add_input(i);
  for (auto& o : outputs) n.add_output(o);
  return n;
}

void setAttribute(onnx::NodeProto& n, const std::string& name, std::int64_t i) {
  auto& a = *n.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(i);
}

void setAttribute(onnx::NodeProto& n, const std::string& name, const std::string& s) {
  auto& a = *n.add_attribute();
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(s);
}

/// x [T, N, 2] -> RNN (hidden 2, reverse) -> Squeeze -> y, with W, R, B, and an initial state.
onnx::ModelProto reverseRnn(const std::string& initialH = "") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto& g = *m.mutable_graph();
  addValue(*g.add_input(), "x", 2);
  addValue(*g.add_output(), "y", 2);
  addFloats(g, "W", {1, 2, 2}, {1, 2, 3, 4});
  addFloats(g, "R", {1, 2, 2}, {5, 6, 7, 8});
  addFloats(g, "B", {1, 4}, {0.5f, 1, 0.25f, 2});
  onnx::TensorProto& axes = *g.add_initializer();
  axes.set_name("axes");
  axes.set_data_type(onnx::TensorProto::INT64);
  axes.add_dims(1);
  axes.add_int64_data(1);
  onnx::NodeProto& rnn = addNode(g, "RNN", "cell", {"x", "W", "R", "B", "", initialH}, {"Y"});
  setAttribute(rnn, "hidden_size", 2);
  setAttribute(rnn, "direction", std::string("reverse"));
  addNode(g, "Squeeze", "squeeze", {"Y", "axes"}, {"y"});
  return m;
}

std::string refusal(const onnx::ModelProto& m) {
  try {
    importOnnx(m.SerializeAsString(), "m.onnx");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace

class TestOnnxImport : public QObject {
  Q_OBJECT
 private slots:
  void reverseRnnIsALayerReadingItselfAhead();
  void unmappedOperatorIsRefusedNamingNodeAndOperator();
  void nonZeroInitialStateIsRefused();
  void bytesThatAreNotAModelAreRefused();
};

void TestOnnxImport::reverseRnnIsALayerReadingItselfAhead() {
  const OnnxImport imported = importOnnx(reverseRnn().SerializeAsString(), "m.onnx");
  const Graph& g = imported.graph;
  QCOMPARE(g.layers.size(), std::size_t{2});
  QCOMPARE(g.layers[1].id, std::string("y"));  // the cell's layer, named after the output
  QVERIFY(g.layers[1].activation == Activation::Tanh);
  QVERIFY(g.layers[1].loss == LossKind::Mse);
  QCOMPARE(g.connections.size(), std::size_t{2});
  QCOMPARE(g.connections[1].id, std::string("y->y@-1"));
  QVERIFY(usesVersion2(g));
  QCOMPARE(imported.weights.at("connections.x->y.weight").f32()[1], 2.0f);
  QCOMPARE(imported.weights.at("connections.y->y@-1.weight").f32()[2], 7.0f);
  const auto bias = imported.weights.at("layers.y.bias").f32();  // Wb + Rb
  QCOMPARE(bias[0], 0.75f);
  QCOMPARE(bias[1], 3.0f);
}

void TestOnnxImport::unmappedOperatorIsRefusedNamingNodeAndOperator() {
  onnx::ModelProto m = reverseRnn();
  m.mutable_graph()->mutable_node(1)->set_op_type("Flatten");
  const std::string why = refusal(m);
  QVERIFY2(why.find("m.onnx: node 'squeeze' (Flatten): operator Flatten is not one the "
                    "importer maps") != std::string::npos,
           why.c_str());
}

void TestOnnxImport::nonZeroInitialStateIsRefused() {
  onnx::ModelProto m = reverseRnn("h0");
  addFloats(*m.mutable_graph(), "h0", {1, 1, 2}, {0, 1});
  const std::string why = refusal(m);
  QVERIFY2(why.find("node 'cell' (RNN): initial_h ('h0') is not zeros") != std::string::npos,
           why.c_str());
  onnx::ModelProto zeros = reverseRnn("h0");
  addFloats(*zeros.mutable_graph(), "h0", {1, 1, 2}, {0, 0});
  QCOMPARE(importOnnx(zeros.SerializeAsString(), "m.onnx").graph.layers.size(), std::size_t{2});
}

void TestOnnxImport::bytesThatAreNotAModelAreRefused() {
  const std::string bytes = reverseRnn().SerializeAsString();
  for (const std::string& broken : {bytes.substr(0, bytes.size() / 2), std::string()}) {
    try {
      importOnnx(broken, "m.onnx");
      QFAIL("no exception");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("m.onnx: not an ONNX model") == 0, e.what());
    }
  }
}

QTEST_GUILESS_MAIN(TestOnnxImport)
#include "tst_onnximport.moc"
