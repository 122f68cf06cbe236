#pragma once
// The ONNX model's main graph as a scope of the op binder (onnx_op_binder.hpp): every buffer a
// tensor [T, N, size]. A layer read d frames back anywhere carries its last d_max frames between
// chunks (state.<id> in, state.<id>.next out); its history is that state and its frames, end to
// end, which a shifted read slices. A graph that reads ahead (a negative delay) is computed on
// whole sequences: its model has no state inputs or outputs, a read ahead slices the layer's
// frames followed by zeros, and a node that scans backward in time is a reversed Scan. A
// recurrent node is bound by onnx_recurrent_node.cpp.
#include <map>
#include <string>
#include <vector>

#include "onnx_op_binder.hpp"

namespace rnnwb::onnx_export {

class ModelGraph : public Scope {
 public:
  ModelGraph(const CompiledPlan& plan, const ParameterSet& parameters);
  std::string serialize();

  // Scope
  std::string shiftedValue(int layer, int shift) override;
  std::string rowShape(int units) override;

  /// [N, units]: the rows of one frame (a Scan body's).
  std::string frameShape(int units);
  const CompiledPlan& plan() const { return m_plan; }
  OnnxGraph& graph() { return m_graph; }
  WeightTable& weights() { return m_weights; }
  OpBinder& binder() { return m_binder; }
  NameSource& names() { return m_names; }
  /// Frames of `layer` that some connection reads back (d_max), 0 for none.
  int carried(int layer) const { return m_carried[layer]; }
  /// Frames of `layer` that some connection reads ahead (the largest -d of a negative delay).
  int ahead(int layer) const { return m_ahead[layer]; }
  /// [ahead, N, size] zeros: the frames past the sequence's end, where a read ahead starts.
  std::string zerosAhead(int layer);
  /// The state a chunk starts from, [carried, N, size].
  const std::string& stateIn(int layer) const { return m_stateIn.at(layer); }
  void setStateNext(int layer, std::string tensor) { m_stateNext[layer] = std::move(tensor); }

 private:
  void findCarriedFrames(const op::Program& program);
  void addInputs();
  void addStates();
  void addOutputs();
  std::string history(int layer);

  const CompiledPlan& m_plan;
  const std::vector<Layer>& m_layers;
  onnx::ModelProto m_model;
  NameSource m_names;
  OnnxGraph m_graph;
  WeightTable m_weights;
  OpBinder m_binder;
  std::vector<int> m_carried, m_ahead;
  bool m_wholeSequences = false;  // reads ahead: no state inputs or outputs, no chunks
  std::map<int, std::string> m_stateIn, m_stateNext, m_history, m_future, m_zerosAhead;
  std::map<int, std::string> m_rowShapes, m_frameShapes;
  std::string m_frames, m_streams;  // T and N, int64 [1]
};

/// Binds a recurrent node's forward: its forwardAll in the main graph (already run), its
/// forwardStep as the body of one Scan over the frames.
void exportRecurrentNode(ModelGraph& model, const op::NodeProgram& node);

}  // namespace rnnwb::onnx_export
