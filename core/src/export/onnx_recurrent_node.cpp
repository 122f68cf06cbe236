// A recurrent node as one ONNX Scan (onnx_model.hpp). The body computes one frame of the node's
// forwardStep. Its state variables are the last d_max frames of each layer of the node that a
// connection reads back (oldest first); its scan inputs are the sums and factors that the
// node's forwardAll computed over all frames (the fills and the terms from outside the node), and
// whatever else of the main graph the step reads; its scan outputs are the frames of every layer
// of the node. A node that reads ahead (negative delays: it scans backward in time) is a reversed
// Scan: its frames go in and come out last first, and its states are the frames just ahead.
#include <algorithm>
#include <limits>
#include <map>

#include "onnx_model.hpp"

namespace rnnwb::onnx_export {

namespace {

class ScanBody : public Scope {
 public:
  ScanBody(ModelGraph& model, const op::NodeProgram& node)
      : m_model(model),
        m_node(node),
        m_layers(model.plan().graph().layers),
        m_body(m_proto, model.names()),
        m_binder(m_body, model.weights(), *this) {
    m_proto.set_name(model.names().fresh("scan_body"));
    for (const op::Op& op : node.forwardStep)
      for (const op::Ref* ref : {&op.a, &op.b})
        m_reverse = m_reverse || (ref->buffer == op::Buffer::Value && ref->shift < 0);
  }

  void build();

  // Scope: a frame `shift` back of a layer of the node is a row of its carried state.
  std::string shiftedValue(int layer, int shift) override {
    const auto outside = m_outside.find({layer, shift});
    if (outside != m_outside.end()) return outside->second;
    const std::int64_t row = carried(layer) - (shift < 0 ? -shift : shift);
    return m_body.node("Gather", {m_stateIn.at(layer), m_body.int64s("row", {row}, true)},
                       "delayed", {{"axis", 0}});
  }
  std::string rowShape(int units) override { return m_model.frameShape(units); }

 private:
  /// The frames of `layer` the Scan carries: those read back, or ahead in a reversed Scan.
  int carried(int layer) const { return m_reverse ? m_model.ahead(layer) : m_model.carried(layer); }
  bool inNode(int layer) const {
    return std::find(m_node.layers.begin(), m_node.layers.end(), layer) != m_node.layers.end();
  }
  void addStates();
  void addScanInputs();
  void addScanInput(const std::string& outer, int size, const std::string& hint,
                    const BufferKey* key, std::pair<int, int> outside);
  void addOutputsAndScan();

  ModelGraph& m_model;
  const op::NodeProgram& m_node;
  const std::vector<Layer>& m_layers;
  onnx::GraphProto m_proto;
  OnnxGraph m_body;
  OpBinder m_binder;
  std::map<int, std::string> m_stateIn;                  // per carried layer, in the body
  std::map<std::pair<int, int>, std::string> m_outside;  // (layer, shift) read from the graph
  std::vector<std::string> m_initialStates, m_scanInputs;
  bool m_reverse = false;  // the node scans backward in time
};

void ScanBody::addStates() {
  for (int layer : m_node.layers) {
    const int frames = carried(layer);
    if (frames == 0) continue;
    const std::string name = m_model.names().fresh("state_" + m_layers[layer].id);
    m_body.addInput(name, {std::to_string(frames), "", std::to_string(m_layers[layer].size)});
    m_stateIn[layer] = name;
    m_initialStates.push_back(m_reverse ? m_model.zerosAhead(layer) : m_model.stateIn(layer));
  }
}

void ScanBody::addScanInput(const std::string& outer, int size, const std::string& hint,
                            const BufferKey* key, std::pair<int, int> outside) {
  const std::string name = m_model.names().fresh(hint);
  m_body.addInput(name, {"", std::to_string(size)});
  m_scanInputs.push_back(outer);
  if (key != nullptr)
    m_binder.set(*key, {name, {}});
  else
    m_outside[outside] = name;
}

void ScanBody::addScanInputs() {
  // What forwardAll left in the node's sums, values and factors: a tensor over all frames goes
  // in frame by frame; a pending fill stays pending (its row is an initializer of the graph).
  const auto& slots = m_model.binder().slots();
  std::vector<BufferKey> seen;
  for (const op::Op& op : m_node.forwardAll) {
    const BufferKey key = OpBinder::keyOf(op.dst);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    const Slot& slot = slots.at(key);
    if (slot.tensor.empty())
      m_binder.set(key, slot);
    else
      addScanInput(slot.tensor, op.units, "frame_sum", &key, {});
  }
  // Rows of layers outside the node that the step reads (none in today's lowering: its external
  // terms are all in forwardAll; a factor read in place would be one).
  for (const op::Op& op : m_node.forwardStep)
    for (const op::Ref* ref : {&op.a, &op.b}) {
      if (ref->buffer != op::Buffer::Value || inNode(ref->index)) continue;
      const std::pair<int, int> at{ref->index, ref->shift};
      if (m_outside.count(at)) continue;
      const int size = m_layers[ref->index].size;
      const std::string outer = ref->shift != 0 ? m_model.shiftedValue(ref->index, ref->shift)
                                                : m_model.binder().read(*ref, size);
      const BufferKey key = OpBinder::keyOf(*ref);
      addScanInput(outer, size, "frame_input", ref->shift == 0 ? &key : nullptr, at);
    }
}

void ScanBody::addOutputsAndScan() {
  constexpr std::int64_t kToTheEnd = std::numeric_limits<std::int64_t>::max();
  std::vector<std::string> outerOutputs;
  std::vector<int> carriedLayers;
  for (int layer : m_node.layers) {  // the states, rolled by one frame
    const int frames = carried(layer);
    if (frames == 0) continue;
    const std::string y = m_binder.read({op::Buffer::Value, layer, 0}, m_layers[layer].size);
    const std::string row = m_body.node("Unsqueeze", {y, m_body.int64s("axes", {0})}, "frame");
    const std::string next = m_model.names().fresh("state_next_" + m_layers[layer].id);
    if (frames == 1) {
      m_body.nodeTo("Identity", {row}, next);
    } else {
      const std::string older =
          m_body.node("Slice",
                      {m_stateIn[layer], m_body.int64s("begin", {1}),
                       m_body.int64s("end", {kToTheEnd}), m_body.int64s("axes", {0})},
                      "older");
      m_body.nodeTo("Concat", {older, row}, next, {{"axis", 0}});
    }
    m_body.addOutput(next, {std::to_string(frames), "", std::to_string(m_layers[layer].size)});
    outerOutputs.push_back(m_model.names().fresh("final_state_" + m_layers[layer].id));
    carriedLayers.push_back(layer);
  }
  std::vector<std::string> frames;
  for (int layer : m_node.layers) {  // every frame of every layer of the node
    const std::string out = m_model.names().fresh("frame_" + m_layers[layer].id);
    m_body.nodeTo("Identity", {m_binder.read({op::Buffer::Value, layer, 0}, m_layers[layer].size)},
                  out);
    m_body.addOutput(out, {"", std::to_string(m_layers[layer].size)});
    frames.push_back(m_model.names().fresh("frames_" + m_layers[layer].id));
  }
  std::vector<std::string> inputs = m_initialStates;
  inputs.insert(inputs.end(), m_scanInputs.begin(), m_scanInputs.end());
  std::vector<std::string> outputs = outerOutputs;
  outputs.insert(outputs.end(), frames.begin(), frames.end());
  onnx::NodeProto& scan = m_model.graph().rawNode("Scan", inputs, outputs);
  onnx::AttributeProto& body = *scan.add_attribute();
  body.set_name("body");
  body.set_type(onnx::AttributeProto::GRAPH);
  *body.mutable_g() = std::move(m_proto);
  onnx::AttributeProto& count = *scan.add_attribute();
  count.set_name("num_scan_inputs");
  count.set_type(onnx::AttributeProto::INT);
  count.set_i(static_cast<std::int64_t>(m_scanInputs.size()));
  if (m_reverse) {  // frames in and out last first: the outputs come back in frame order
    const std::pair<const char*, std::size_t> lists[] = {
        {"scan_input_directions", m_scanInputs.size()}, {"scan_output_directions", frames.size()}};
    for (const auto& [name, count] : lists) {
      onnx::AttributeProto& directions = *scan.add_attribute();
      directions.set_name(name);
      directions.set_type(onnx::AttributeProto::INTS);
      for (std::size_t k = 0; k < count; ++k) directions.add_ints(1);
    }
  }

  for (std::size_t k = 0; k < carriedLayers.size() && !m_reverse; ++k)
    m_model.setStateNext(carriedLayers[k], outerOutputs[k]);
  for (std::size_t k = 0; k < m_node.layers.size(); ++k)
    m_model.binder().set({op::Buffer::Value, m_node.layers[k]}, {frames[k], {}});
}

void ScanBody::build() {
  addStates();
  addScanInputs();
  if (m_scanInputs.empty()) {  // nothing from outside: the first input counts the frames
    const int input = m_model.plan().inputLayers().front();
    addScanInput(m_layers[input].id, m_layers[input].size, "frame_count", nullptr, {-1, 0});
  }
  m_binder.run(m_node.forwardStep);
  addOutputsAndScan();
}

}  // namespace

void exportRecurrentNode(ModelGraph& model, const op::NodeProgram& node) {
  ScanBody(model, node).build();
}

}  // namespace rnnwb::onnx_export
