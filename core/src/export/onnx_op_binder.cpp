// The ONNX binder's op kinds (onnx_op_binder.hpp). Only forward regions come here: the backward,
// gradient and loss kinds are refused as a logic error (the exporter never binds them).
#include "onnx_op_binder.hpp"

#include <limits>
#include <stdexcept>

namespace rnnwb::onnx_export {

using op::Buffer;
using op::Kind;

// --- parameters ------------------------------------------------------------------------------

std::string WeightTable::keysAt(std::int64_t offset, std::size_t count) const {
  std::string keys;
  const std::size_t first = static_cast<std::size_t>(offset);
  for (const ParameterView& view : m_parameters.layout().views())
    if (view.offset >= first && view.offset < first + count)
      keys += (keys.empty() ? "" : "+") + view.key;
  if (keys.empty()) throw std::logic_error("ONNX export: an op's weights are no parameter's");
  return keys;
}

std::string WeightTable::productWeights(const op::Op& product) {
  // W is [units, inner] (transposed) or [inner, units] at `weights` with leading dimension ldw.
  const auto values = m_parameters.values();
  const int rows = product.transposeWeights ? product.units : product.inner;
  std::vector<float> right(static_cast<std::size_t>(product.inner) * product.units);
  for (int i = 0; i < product.inner; ++i)
    for (int u = 0; u < product.units; ++u) {
      const std::size_t at = product.transposeWeights
                                 ? static_cast<std::size_t>(u) * product.ldw + i
                                 : static_cast<std::size_t>(i) * product.ldw + u;
      right[static_cast<std::size_t>(i) * product.units + u] = values[product.weights + at];
    }
  const std::size_t span = static_cast<std::size_t>(rows - 1) * product.ldw +
                           (product.transposeWeights ? product.inner : product.units);
  const std::string name = keysAt(product.weights, span) + (product.transposeWeights ? ".T" : "");
  return m_graph.floats(name, {product.inner, product.units}, right);
}

std::string WeightTable::diagonal(const op::Op& op) {
  const auto values = m_parameters.values().subspan(op.weights, op.units);
  return m_graph.floats(keysAt(op.weights, op.units), {op.units},
                        std::vector<float>(values.begin(), values.end()));
}

std::string WeightTable::bias(int layer) {
  const ParameterView* view = m_parameters.layout().layerBias(layer);
  if (view == nullptr) throw std::logic_error("ONNX export: a bias row of a layer without one");
  const auto values = m_parameters.view(*view);
  return m_graph.floats(view->key, {static_cast<std::int64_t>(values.size())},
                        std::vector<float>(values.begin(), values.end()));
}

std::string WeightTable::scalar(float value) {
  if (value != 0.0f && value != 1.0f) throw std::logic_error("ONNX export: a scalar of no name");
  return m_graph.floats(value == 0.0f ? "/zero" : "/one", {}, {value});
}

// --- buffers ---------------------------------------------------------------------------------

std::string OpBinder::readStack(const op::Ref& ref, int units) {
  for (auto it = m_stack.rbegin(); it != m_stack.rend(); ++it) {  // the latest product first
    const StackColumns& columns = *it;
    if (ref.index < columns.first || ref.index + units > columns.first + columns.units) continue;
    if (ref.index == columns.first && units == columns.units) return columns.tensor;
    const std::int64_t begin = ref.index - columns.first;
    return m_graph.node("Slice",
                        {columns.tensor, m_graph.int64s("begin", {begin}),
                         m_graph.int64s("end", {begin + units}), m_graph.int64s("axes", {-1})},
                        "stack_columns");
  }
  throw std::logic_error("ONNX export: an op reads stack columns no product wrote");
}

std::string OpBinder::read(const op::Ref& ref, int units) {
  switch (ref.buffer) {
    case Buffer::Value:
      if (ref.shift != 0) return m_scope.shiftedValue(ref.index, ref.shift);
      break;
    case Buffer::Sum:
    case Buffer::Factor:
      break;
    case Buffer::Stack:
      return readStack(ref, units);
    case Buffer::Bias:
      return m_weights.bias(ref.index);
    default:
      throw std::logic_error("ONNX export: a forward op reads a buffer of the backward");
  }
  const auto found = m_slots.find(keyOf(ref));
  if (found == m_slots.end())
    throw std::logic_error("ONNX export: an op reads a buffer before anything wrote it");
  Slot& slot = m_slots[keyOf(ref)];
  if (slot.tensor.empty()) {  // a Fill with no term after it: the row for every frame
    const std::string row = slot.pending.empty() ? m_weights.scalar(0.0f) : slot.pending;
    slot.tensor = m_graph.node("Expand", {row, m_scope.rowShape(units)}, "filled");
  }
  return slot.tensor;
}

void OpBinder::write(const op::Ref& dst, std::string tensor) {
  if (dst.buffer == Buffer::Stack)
    throw std::logic_error("ONNX export: only a product writes stack columns");
  m_slots[keyOf(dst)] = {std::move(tensor), {}};
}

void OpBinder::accumulate(const op::Ref& dst, const std::string& term, bool subtract) {
  const auto found = m_slots.find(keyOf(dst));
  if (found == m_slots.end())
    throw std::logic_error("ONNX export: an op adds into a buffer nothing filled");
  const Slot slot = found->second;
  if (!slot.tensor.empty())
    return write(dst, m_graph.node(subtract ? "Sub" : "Add", {slot.tensor, term}, "sum"));
  if (slot.pending.empty())  // 0 + term
    return write(dst, subtract ? m_graph.node("Neg", {term}, "negated") : term);
  write(dst, m_graph.node(subtract ? "Sub" : "Add", {slot.pending, term}, "sum"));  // bias + term
}

std::string OpBinder::activate(Activation activation, const std::string& x) {
  switch (activation) {
    case Activation::Identity:
      return x;
    case Activation::Sigmoid:
      return m_graph.node("Sigmoid", {x}, "sigmoid");
    case Activation::Tanh:
      return m_graph.node("Tanh", {x}, "tanh");
    case Activation::Relu:
      return m_graph.node("Relu", {x}, "relu");
    case Activation::Softmax:  // over a row's units, as the engines
      return m_graph.node("Softmax", {x}, "softmax", {{"axis", -1}});
  }
  throw std::logic_error("ONNX export: an activation of no known kind");
}

std::string OpBinder::product(const op::Op& op) {
  return m_graph.node("MatMul", {read(op.a, op.inner), m_weights.productWeights(op)}, "product");
}

// --- op kinds --------------------------------------------------------------------------------

void OpBinder::run(const std::vector<op::Op>& ops) {
  for (const op::Op& op : ops) runOne(op);
}

void OpBinder::runOne(const op::Op& op) {
  const auto a = [&] { return read(op.a, op.units); };
  const auto b = [&] { return read(op.b, op.units); };
  const auto scaled = [&](const std::string& x) {
    return m_graph.node("Mul", {x, m_weights.diagonal(op)}, "scaled");
  };
  const auto complement = [&] {
    return m_graph.node("Sub", {m_weights.scalar(1.0f), a()}, "complement");
  };
  switch (op.kind) {
    case Kind::Fill:
      m_slots[keyOf(op.dst)] = {{}, op.a.buffer == Buffer::Bias ? m_weights.bias(op.a.index) : ""};
      return;
    case Kind::Add:
      return accumulate(op.dst, a());
    case Kind::AddScaled:
      return accumulate(op.dst, scaled(a()));
    case Kind::Subtract:
      return accumulate(op.dst, a(), true);
    case Kind::AddComplement:
      return accumulate(op.dst, complement());
    case Kind::MulAdd:
      return accumulate(op.dst, m_graph.node("Mul", {a(), b()}, "product"));
    case Kind::Assign:
    case Kind::Copy:
      return write(op.dst, a());
    case Kind::AssignScaled:
      return write(op.dst, scaled(a()));
    case Kind::AssignComplement:
      return write(op.dst, complement());
    case Kind::AssignNegated:
      return write(op.dst, m_graph.node("Neg", {a()}, "negated"));
    case Kind::Mul:
    case Kind::MulAssign:
      return write(op.dst, m_graph.node("Mul", {a(), b()}, "product"));
    case Kind::MulInto:
      return write(op.dst, m_graph.node("Mul", {read(op.dst, op.units), a()}, "product"));
    case Kind::Activate:
      return write(op.dst, activate(op.activation, a()));
    case Kind::AddActivate: {
      const std::string term = op.weights >= 0 ? scaled(b()) : b();
      return write(op.dst, activate(op.activation, m_graph.node("Add", {a(), term}, "sum")));
    }
    case Kind::Product: {
      const std::string term = product(op);
      if (op.dst.buffer == Buffer::Stack) {
        m_stack.push_back({op.dst.index, op.units, term});
        return;
      }
      if (op.beta == 0.0f) return write(op.dst, term);
      return accumulate(op.dst, term);
    }
    default:
      throw std::logic_error("ONNX export: a backward, loss or gradient op in a forward region");
  }
}

}  // namespace rnnwb::onnx_export
