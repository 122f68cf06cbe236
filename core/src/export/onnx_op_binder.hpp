#pragma once
// The ONNX binder of the op program's forward regions (op_program.hpp): each op kind maps to ONNX
// nodes once. A region runs in a scope: the graph's (every buffer a tensor [T, N, size], all
// frames at once) or a Scan body's (one frame, [N, size]). ONNX values are written once, so a
// buffer is the name of its latest tensor; a Fill leaves it pending (a bias or zeros, broadcast
// into the first term added), which saves the add of a zero and a tensor of copies of the bias.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "onnx_graph.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/op_program.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"

namespace rnnwb::onnx_export {

/// The parameters as initializers of the model's main graph (a Scan body reads them from there).
class WeightTable {
 public:
  WeightTable(OnnxGraph& graph, const ParameterSet& parameters)
      : m_graph(graph), m_parameters(parameters) {}
  /// A product's W as MatMul's right operand [inner, units].
  std::string productWeights(const op::Op& product);
  std::string diagonal(const op::Op& op);
  std::string bias(int layer);
  std::string scalar(float value);

 private:
  std::string keysAt(std::int64_t offset, std::size_t count) const;
  OnnxGraph& m_graph;
  const ParameterSet& m_parameters;
};

/// What refs resolve to outside the binder's own buffers.
class Scope {
 public:
  virtual ~Scope() = default;
  /// y of `layer` `shift` frames back (a negative shift: ahead), shaped as this scope's rows.
  virtual std::string shiftedValue(int layer, int shift) = 0;
  /// The shape of this scope's rows of `units` floats, an int64 tensor.
  virtual std::string rowShape(int units) = 0;
};

using BufferKey = std::pair<op::Buffer, int>;

struct Slot {
  std::string tensor;   // the latest tensor; empty while pending
  std::string pending;  // a Fill's row (a bias, or "" for zeros) broadcast into the first term
};

class OpBinder {
 public:
  OpBinder(OnnxGraph& graph, WeightTable& weights, Scope& scope)
      : m_graph(graph), m_weights(weights), m_scope(scope) {}

  void run(const std::vector<op::Op>& ops);
  /// The buffer as a tensor of this scope's rows (a pending one broadcast to them).
  std::string read(const op::Ref& ref, int units);
  void set(BufferKey key, Slot slot) { m_slots[key] = std::move(slot); }
  const std::map<BufferKey, Slot>& slots() const { return m_slots; }
  static BufferKey keyOf(const op::Ref& ref) { return {ref.buffer, ref.index}; }

 private:
  struct StackColumns {
    int first = 0, units = 0;
    std::string tensor;
  };
  void runOne(const op::Op& op);
  void write(const op::Ref& dst, std::string tensor);
  /// dst += term (dst -= term with `subtract`).
  void accumulate(const op::Ref& dst, const std::string& term, bool subtract = false);
  std::string activate(Activation activation, const std::string& x);
  std::string product(const op::Op& op);
  std::string readStack(const op::Ref& ref, int units);

  OnnxGraph& m_graph;
  WeightTable& m_weights;
  Scope& m_scope;
  std::map<BufferKey, Slot> m_slots;
  std::vector<StackColumns> m_stack;
};

}  // namespace rnnwb::onnx_export
