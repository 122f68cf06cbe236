// The ONNX model of a plan (onnx_model.hpp, rnnwb/core/onnx_export.hpp): the op program lowered
// once, its nodes bound in schedule order, plain nodes over all frames in the main graph.
#include "onnx_model.hpp"

#include <algorithm>
#include <limits>

#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/engine/op_lowering.hpp"
#include "rnnwb/core/onnx_export.hpp"

namespace rnnwb {

namespace onnx_export {

namespace {

constexpr std::int64_t kIrVersion = 8;  // ONNX 1.10's: what opset 17's runtimes all read
constexpr std::int64_t kOpset = 17;
constexpr std::int64_t kToTheEnd = std::numeric_limits<std::int64_t>::max();

std::string sizeText(int size) { return std::to_string(size); }

}  // namespace

ModelGraph::ModelGraph(const CompiledPlan& plan, const ParameterSet& parameters)
    : m_plan(plan),
      m_layers(plan.graph().layers),
      m_graph(*m_model.mutable_graph(), m_names),
      m_weights(m_graph, parameters),
      m_binder(m_graph, m_weights, *this) {
  m_model.set_ir_version(kIrVersion);
  m_model.set_producer_name("rnnwb");
  onnx::OperatorSetIdProto& opset = *m_model.add_opset_import();
  opset.set_domain("");
  opset.set_version(kOpset);
  m_graph.proto().set_name(plan.graph().name.empty() ? "rnnwb" : plan.graph().name);

  const op::Program program = op::lower(plan, parameters.layout());
  findCarriedFrames(program);
  addInputs();
  addStates();
  for (const op::NodeProgram& node : program.nodes) {
    if (!node.computes) continue;  // an input layer: a graph input
    m_binder.run(node.forwardAll);
    if (node.recurrent) exportRecurrentNode(*this, node);
  }
  addOutputs();
}

std::string ModelGraph::serialize() {
  checkUniqueNames(m_model.graph());
  return m_model.SerializeAsString();
}

void ModelGraph::findCarriedFrames(const op::Program& program) {
  m_carried.assign(m_layers.size(), 0);
  m_ahead.assign(m_layers.size(), 0);
  m_wholeSequences = m_plan.needsWholeSequences();
  const auto see = [&](const op::Ref& ref) {
    if (ref.buffer == op::Buffer::Value && ref.shift > 0)
      m_carried[ref.index] = std::max(m_carried[ref.index], ref.shift);
    if (ref.buffer == op::Buffer::Value && ref.shift < 0)
      m_ahead[ref.index] = std::max(m_ahead[ref.index], -ref.shift);
  };
  for (const op::NodeProgram& node : program.nodes)
    for (const auto* region : {&node.forwardAll, &node.forwardStep})
      for (const op::Op& op : *region) {
        see(op.a);
        see(op.b);
      }
}

void ModelGraph::addInputs() {
  const std::vector<int>& inputs = m_plan.inputLayers();
  if (inputs.empty())
    throw std::invalid_argument("the ONNX export needs an input layer: graph '" +
                                m_plan.graph().name + "' has none");
  for (int layer : inputs) {
    const Layer& spec = m_layers[layer];
    m_graph.addInput(spec.id, {"T", "N", sizeText(spec.size)});
    m_binder.set({op::Buffer::Value, layer}, {spec.id, {}});
  }
  // T and N from the first input: every input has the same.
  const std::string& first = m_layers[inputs.front()].id;
  m_frames = m_graph.node("Shape", {first}, "frames", {{"start", 0}, {"end", 1}});
  m_streams = m_graph.node("Shape", {first}, "streams", {{"start", 1}, {"end", 2}});
}

void ModelGraph::addStates() {
  for (std::size_t layer = 0; layer < m_layers.size(); ++layer) {
    const int frames = m_carried[layer];
    if (frames == 0) continue;
    const Layer& spec = m_layers[layer];
    // An input with an initializer is optional: left out, the chunk starts from zeros, one row
    // of them broadcast to the streams.
    const std::string name = "state." + spec.id;
    // A whole-sequence model starts every sequence from zeros: no input to give a state.
    if (!m_wholeSequences) m_graph.addInput(name, {sizeText(frames), "N", sizeText(spec.size)});
    m_graph.floats(name, {frames, 1, spec.size},
                   std::vector<float>(static_cast<std::size_t>(frames) * spec.size, 0.0f));
    const std::string shape = m_graph.node(
        "Concat",
        {m_graph.int64s("frames", {frames}), m_streams, m_graph.int64s("size", {spec.size})},
        "state_shape", {{"axis", 0}});
    m_stateIn[static_cast<int>(layer)] = m_graph.node("Expand", {name, shape}, "state");
  }
}

void ModelGraph::addOutputs() {
  for (int layer : m_plan.outputLayers()) {
    const Layer& spec = m_layers[layer];
    m_graph.nodeTo("Identity", {m_binder.read({op::Buffer::Value, layer, 0}, spec.size)}, spec.id);
    m_graph.addOutput(spec.id, {"T", "N", sizeText(spec.size)});
  }
  for (std::size_t layer = 0; layer < m_layers.size(); ++layer) {
    const int frames = m_carried[layer];
    if (frames == 0 || m_wholeSequences) continue;
    const int index = static_cast<int>(layer);
    if (!m_stateNext.count(index))  // the last frames of its history
      m_stateNext[index] =
          m_graph.node("Slice",
                       {history(index), m_graph.int64s("begin", {-frames}),
                        m_graph.int64s("end", {kToTheEnd}), m_graph.int64s("axes", {0})},
                       "state_next");
    const Layer& spec = m_layers[layer];
    const std::string name = "state." + spec.id + ".next";
    m_graph.nodeTo("Identity", {m_stateNext[index]}, name);
    m_graph.addOutput(name, {sizeText(frames), "N", sizeText(spec.size)});
  }
}

std::string ModelGraph::history(int layer) {
  auto& known = m_history[layer];
  if (known.empty())
    known = m_graph.node(
        "Concat",
        {m_stateIn.at(layer), m_binder.read({op::Buffer::Value, layer, 0}, m_layers[layer].size)},
        "history", {{"axis", 0}});
  return known;
}

std::string ModelGraph::zerosAhead(int layer) {
  auto& known = m_zerosAhead[layer];
  if (!known.empty()) return known;
  const int frames = m_ahead[layer], size = m_layers[layer].size;
  const std::string zeros =
      m_graph.floats("ahead." + m_layers[layer].id, {frames, 1, size},
                     std::vector<float>(static_cast<std::size_t>(frames) * size, 0.0f));
  const std::string shape = m_graph.node(
      "Concat", {m_graph.int64s("frames", {frames}), m_streams, m_graph.int64s("size", {size})},
      "ahead_shape", {{"axis", 0}});
  return known = m_graph.node("Expand", {zeros, shape}, "ahead");
}

std::string ModelGraph::shiftedValue(int layer, int shift) {
  if (shift < 0) {
    // The future of a layer is its frames and then `ahead` frames of zeros: frame t + a is
    // future frame t + a, for t in [0, T).
    auto& future = m_future[layer];
    if (future.empty())
      future = m_graph.node(
          "Concat",
          {m_binder.read({op::Buffer::Value, layer, 0}, m_layers[layer].size), zerosAhead(layer)},
          "future", {{"axis", 0}});
    const std::int64_t rest = m_ahead[layer] + shift;  // zeros left after the read's end
    return m_graph.node(
        "Slice",
        {future, m_graph.int64s("begin", {-shift}),
         m_graph.int64s("end", {rest == 0 ? kToTheEnd : -rest}), m_graph.int64s("axes", {0})},
        "ahead");
  }
  // History frame k is frame k - d_max of the chunk: frame t - shift is history frame
  // t + d_max - shift, for t in [0, T): up to `shift` frames before the history's end.
  const std::int64_t begin = m_carried[layer] - shift;
  return m_graph.node(
      "Slice",
      {history(layer), m_graph.int64s("begin", {begin}),
       m_graph.int64s("end", {-static_cast<std::int64_t>(shift)}), m_graph.int64s("axes", {0})},
      "delayed");
}

std::string ModelGraph::rowShape(int units) {
  auto& known = m_rowShapes[units];
  if (known.empty())
    known = m_graph.node("Concat", {m_frames, m_streams, m_graph.int64s("size", {units})},
                         "row_shape", {{"axis", 0}});
  return known;
}

std::string ModelGraph::frameShape(int units) {
  auto& known = m_frameShapes[units];
  if (known.empty())
    known = m_graph.node("Concat", {m_streams, m_graph.int64s("size", {units})}, "frame_shape",
                         {{"axis", 0}});
  return known;
}

}  // namespace onnx_export

std::string exportOnnx(const CompiledPlan& plan, const ParameterSet& parameters) {
  // 2-D graphs, ctc, block and reduce connections. A graph that reads ahead is computed on whole
  // sequences (no states to stream with).
  requireEngineSupport(plan, "the ONNX export", false);
  return onnx_export::ModelGraph(plan, parameters).serialize();
}

}  // namespace rnnwb
