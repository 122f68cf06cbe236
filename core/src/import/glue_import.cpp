// The glue around recurrent operators (import_context.hpp): constants, shapes and zero initial
// states are followed without computing them; on sequences, the operators move units around
// (import_values.hpp). A glue operator never adds a layer.
#include <algorithm>
#include <functional>
#include <map>

#include "import_context.hpp"
#include "onnx_protos.hpp"

namespace rnnwb::onnx_import {

namespace {

using Kind = Value::Kind;

std::vector<std::int64_t> ints(const Tensor& t) {
  if (t.dtype() != DType::I64) throw std::invalid_argument("an integer tensor is needed");
  return {t.i64().begin(), t.i64().end()};
}

/// Axes from input 1 (opset 13 on) or from the attribute.
std::vector<std::int64_t> axesOf(ImportContext& c, int input = 1) {
  if (c.has(input)) return ints(c.constant(input, "axes"));
  return attributeInts(*c.node, "axes");
}

Tensor reshaped(const Tensor& t, Shape shape) {
  return t.dtype() == DType::F32
             ? Tensor::fromF32(std::move(shape), {t.f32().begin(), t.f32().end()})
             : Tensor::fromI64(std::move(shape), {t.i64().begin(), t.i64().end()});
}

/// What a glue operator gives when no input is a sequence: zeros stay zeros (an initial state
/// being shaped), a last state stays one (to be refused by name where it is used), anything
/// else is a number known at run time.
Value notSequence(const ImportContext& c) {
  for (int i = 0; i < c.node->input_size(); ++i)
    if (c.has(i) && c.input(i).kind == Kind::Sequence)
      c.fail("it does not take a sequence ('" + c.node->input(i) + "') here");
  if (c.input(0).kind == Kind::LastState) return c.input(0);  // still not a sequence
  return c.input(0).kind == Kind::Zeros ? Value{Kind::Zeros, {}, {}, -1, c.where()}
                                        : runTimeValue(c.where());
}

void constantNode(ImportContext& c) {
  const onnx::AttributeProto* a = findAttribute(*c.node, "value");
  if (a) return c.output(0, constantValue(tensorFromProto(a->t()), c.where()));
  if ((a = findAttribute(*c.node, "value_float")))
    return c.output(0, constantValue(Tensor::scalarF32(a->f()), c.where()));
  if ((a = findAttribute(*c.node, "value_floats")))
    return c.output(0, constantValue(Tensor::fromF32({a->floats_size()},
                                                     {a->floats().begin(), a->floats().end()}),
                                     c.where()));
  if ((a = findAttribute(*c.node, "value_int")))
    return c.output(0, constantValue(Tensor::fromI64({}, {a->i()}), c.where()));
  if ((a = findAttribute(*c.node, "value_ints")))
    return c.output(
        0, constantValue(Tensor::fromI64({a->ints_size()}, {a->ints().begin(), a->ints().end()}),
                         c.where()));
  c.fail("it holds no value the importer reads (value, value_float(s), value_int(s))");
}

void passThrough(ImportContext& c) {
  Value v = c.input(0);
  v.openLayer = -1;  // read again under another name: nothing folds into it any more
  c.output(0, v);
  for (int i = 1; i < c.node->output_size(); ++i) c.output(i, runTimeValue(c.where()));
}

void shapeNode(ImportContext& c) {
  const Value& v = c.input(0);
  if (v.kind == Kind::Constant) {
    const Shape& s = v.constant.shape();
    return c.output(
        0, constantValue(Tensor::fromI64({static_cast<std::int64_t>(s.size())}, s), c.where()));
  }
  c.output(0, runTimeValue(c.where()));
}

void castNode(ImportContext& c) {
  const Value& v = c.input(0);
  const std::int64_t to = attributeInt(*c.node, "to", 0);
  if (v.kind == Kind::Sequence && to != onnx::TensorProto::FLOAT)
    c.fail("it casts a sequence to ONNX type " + std::to_string(to) + "; the graph is float");
  if (v.kind != Kind::Constant) return passThrough(c);
  const bool toFloat = to == onnx::TensorProto::FLOAT || to == onnx::TensorProto::DOUBLE;
  if (toFloat == (v.constant.dtype() == DType::F32)) return passThrough(c);
  if (toFloat) {
    const std::vector<std::int64_t> from = ints(v.constant);
    return c.output(
        0,
        constantValue(Tensor::fromF32(v.constant.shape(), {from.begin(), from.end()}), c.where()));
  }
  std::vector<std::int64_t> truncated;
  for (float x : v.constant.f32()) truncated.push_back(static_cast<std::int64_t>(x));
  c.output(0, constantValue(Tensor::fromI64(v.constant.shape(), truncated), c.where()));
}

void gatherNode(ImportContext& c) {
  const Value& data = c.input(0);
  const std::int64_t axis = attributeInt(*c.node, "axis", 0);
  if (data.kind == Kind::Sequence) {
    const Tensor& index = c.constant(1, "the indices");
    return c.output(
        0, sequenceValue(gatherSequence(data.sequence, axis, ints(index), index.shape().empty()),
                         c.where()));
  }
  if (data.kind == Kind::Constant && data.constant.dtype() == DType::I64 &&
      data.constant.shape().size() == 1 && c.input(1).kind == Kind::Constant) {
    const Tensor& index = c.input(1).constant;
    std::vector<std::int64_t> picked;
    const std::vector<std::int64_t> all = ints(data.constant);
    for (std::int64_t i : ints(index)) picked.push_back(all[normalizeAxis(i, all.size())]);
    return c.output(0, constantValue(Tensor::fromI64(index.shape(), picked), c.where()));
  }
  c.output(0, notSequence(c));
}

void unsqueezeOrSqueeze(ImportContext& c, bool squeeze) {
  const Value& v = c.input(0);
  const std::vector<std::int64_t> axes = axesOf(c);
  if (v.kind == Kind::Sequence)
    return c.output(0, sequenceValue(squeeze ? squeezeSequence(v.sequence, axes)
                                             : unsqueezeSequence(v.sequence, axes),
                                     c.where()));
  if (v.kind != Kind::Constant) return c.output(0, notSequence(c));
  Shape shape = v.constant.shape();
  if (squeeze) {
    Shape kept;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const bool listed = std::any_of(axes.begin(), axes.end(), [&](std::int64_t a) {
        return normalizeAxis(a, shape.size()) == static_cast<std::int64_t>(i);
      });
      if (!(axes.empty() ? shape[i] == 1 : listed)) kept.push_back(shape[i]);
    }
    shape = kept;
  } else {
    const std::size_t rank = shape.size() + axes.size();
    std::vector<std::int64_t> at;
    for (std::int64_t a : axes) at.push_back(normalizeAxis(a, rank));
    std::sort(at.begin(), at.end());
    for (std::int64_t a : at) shape.insert(shape.begin() + a, 1);
  }
  c.output(0, constantValue(reshaped(v.constant, shape), c.where()));
}

void concatNode(ImportContext& c) {
  std::vector<Sequence> parts;
  bool allConstant = true;
  for (int i = 0; i < c.node->input_size(); ++i) {
    const Value& v = c.input(i);
    if (v.kind == Kind::Sequence) parts.push_back(v.sequence);
    allConstant = allConstant && v.kind == Kind::Constant && v.constant.dtype() == DType::I64 &&
                  v.constant.shape().size() == 1;
  }
  const std::int64_t axis = attributeInt(*c.node, "axis", 0);
  if (!parts.empty()) {
    if (static_cast<int>(parts.size()) != c.node->input_size())
      c.fail("it joins a sequence with a value that is not one");
    return c.output(0, sequenceValue(concatSequences(parts, axis), c.where()));
  }
  if (!allConstant) return c.output(0, runTimeValue(c.where()));
  std::vector<std::int64_t> joined;
  for (int i = 0; i < c.node->input_size(); ++i)
    for (std::int64_t x : ints(c.input(i).constant)) joined.push_back(x);
  c.output(0, constantValue(Tensor::fromI64({static_cast<std::int64_t>(joined.size())}, joined),
                            c.where()));
}

void reshapeNode(ImportContext& c) {
  const Value& v = c.input(0);
  if (v.kind != Kind::Sequence && v.kind != Kind::Constant) return c.output(0, notSequence(c));
  const std::vector<std::int64_t> shape = ints(c.constant(1, "the shape"));
  if (attributeInt(*c.node, "allowzero", 0) != 0 && std::count(shape.begin(), shape.end(), 0) > 0)
    c.fail("allowzero with a 0 in the shape makes an empty tensor");
  if (v.kind == Kind::Sequence)
    return c.output(0, sequenceValue(reshapeSequence(v.sequence, shape), c.where()));
  Shape out = shape;
  std::int64_t known = 1;
  int inferred = -1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0) out[i] = v.constant.shape().at(i);
    if (out[i] == -1)
      inferred = static_cast<int>(i);
    else
      known *= out[i];
  }
  if (inferred >= 0) out[inferred] = known > 0 ? v.constant.elements() / known : 0;
  if (elementCount(out) != v.constant.elements()) c.fail("its shape does not fit the constant");
  c.output(0, constantValue(reshaped(v.constant, out), c.where()));
}

void transposeNode(ImportContext& c) {
  const Value& v = c.input(0);
  std::vector<std::int64_t> perm = attributeInts(*c.node, "perm");
  if (v.kind == Kind::Sequence) {
    if (perm.empty())
      for (std::size_t i = v.sequence.axes.size(); i-- > 0;) perm.push_back(static_cast<int>(i));
    return c.output(0, sequenceValue(transposeSequence(v.sequence, perm), c.where()));
  }
  if (v.kind != Kind::Constant) return c.output(0, notSequence(c));
  const Shape& s = v.constant.shape();
  if (s.size() != 2 || v.constant.dtype() != DType::F32 ||
      !(perm.empty() || perm == std::vector<std::int64_t>{1, 0}))
    return c.output(0, runTimeValue(c.where()));
  std::vector<float> t(v.constant.f32().size());
  for (std::int64_t i = 0; i < s[0]; ++i)
    for (std::int64_t j = 0; j < s[1]; ++j) t[j * s[0] + i] = v.constant.f32()[i * s[1] + j];
  c.output(0, constantValue(Tensor::fromF32({s[1], s[0]}, t), c.where()));
}

void sliceNode(ImportContext& c) {
  const Value& v = c.input(0);
  if (v.kind != Kind::Sequence) return c.output(0, notSequence(c));
  const bool inputs = c.opset >= 10;
  auto list = [&](int i, const char* name) {
    return inputs ? (c.has(i) ? ints(c.constant(i, name)) : std::vector<std::int64_t>{})
                  : attributeInts(*c.node, name);
  };
  const auto starts = list(1, "starts"), ends = list(2, "ends");
  auto axes = list(3, "axes"), steps = list(4, "steps");
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int>(i));
  Sequence s = v.sequence;
  for (std::size_t i = 0; i < starts.size(); ++i)
    s = sliceSequence(s, axes.at(i), starts[i], ends.at(i), steps.empty() ? 1 : steps.at(i));
  c.output(0, sequenceValue(s, c.where()));
}

/// ConstantOfShape and Expand: zeros of a run-time shape are an initial state of zeros.
void fillNode(ImportContext& c, bool expand) {
  if (expand) {
    const Value& v = c.input(0);
    if (v.kind == Kind::Zeros || (v.kind == Kind::Constant && allZero(v.constant)))
      return c.output(0, Value{Kind::Zeros, {}, {}, -1, c.where()});
    if (v.kind == Kind::Sequence) c.fail("it broadcasts a sequence, which a graph does not");
    return c.output(0, runTimeValue(c.where()));
  }
  const onnx::AttributeProto* a = findAttribute(*c.node, "value");
  if (!a || allZero(tensorFromProto(a->t())))
    return c.output(0, Value{Kind::Zeros, {}, {}, -1, c.where()});
  c.output(0, notSequence(c));
}

}  // namespace

bool importGlue(ImportContext& c) {
  static const std::map<std::string, std::function<void(ImportContext&)>> readers = {
      {"Constant", constantNode},
      {"Identity", passThrough},
      {"Dropout", passThrough},
      {"Shape", shapeNode},
      {"Size", [](ImportContext& c) { c.output(0, runTimeValue(c.where())); }},
      {"Cast", castNode},
      {"Gather", gatherNode},
      {"Unsqueeze", [](ImportContext& c) { unsqueezeOrSqueeze(c, false); }},
      {"Squeeze", [](ImportContext& c) { unsqueezeOrSqueeze(c, true); }},
      {"Concat", concatNode},
      {"Reshape", reshapeNode},
      {"Transpose", transposeNode},
      {"Slice", sliceNode},
      {"ConstantOfShape", [](ImportContext& c) { fillNode(c, false); }},
      {"Expand", [](ImportContext& c) { fillNode(c, true); }},
      {"Range", [](ImportContext& c) { c.output(0, notSequence(c)); }},
  };
  const auto found = readers.find(c.node->op_type());
  if (found == readers.end()) return false;
  found->second(c);
  return true;
}

}  // namespace rnnwb::onnx_import
