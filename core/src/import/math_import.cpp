// MatMul, Add, Sub, Mul and the activations (import_context.hpp) on sequences: each makes a
// layer, or folds into the fresh layer of the MatMul (or Add) before it when nothing else reads
// that: MatMul + Add + Tanh is one additive layer with a bias and tanh. On values that are not
// sequences (shape arithmetic of the glue) they give a number known at run time.
#include <functional>
#include <map>

#include "import_context.hpp"
#include "onnx_protos.hpp"

namespace rnnwb::onnx_import {

namespace {

using Kind = Value::Kind;

bool isSequence(const ImportContext& c, int i) {
  return c.has(i) && c.input(i).kind == Kind::Sequence;
}

/// A constant as one value per feature: shape [size], [1, size], [1, 1, size], [1] or a scalar.
std::vector<float> featureVector(const ImportContext& c, int i, std::size_t size) {
  const Tensor& t = c.constant(i, "input " + std::to_string(i));
  if (t.dtype() != DType::F32) c.fail("input " + std::to_string(i) + " is not float");
  const Shape& s = t.shape();
  for (std::size_t d = 0; d + 1 < s.size(); ++d)
    if (s[d] != 1)
      c.fail("constant '" + c.node->input(i) + "' " + shapeToString(s) + " does not broadcast " +
             "as one value per feature over [T, N, " + std::to_string(size) + "]");
  if (t.elements() == 1) return std::vector<float>(size, t.f32()[0]);
  if (static_cast<std::size_t>(t.elements()) != size)
    c.fail("constant '" + c.node->input(i) + "' " + shapeToString(s) + " does not fit " +
           std::to_string(size) + " features");
  return {t.f32().begin(), t.f32().end()};
}

/// The layer input `i` folds into: its fresh layer, when this node alone reads it.
int openLayerOf(const ImportContext& c, int i) {
  const Value& v = c.input(i);
  return v.openLayer >= 0 && c.usedOnce(i) ? v.openLayer : -1;
}

std::vector<float> scaledIdentity(const std::vector<float>& diagonal) {
  const std::size_t n = diagonal.size();
  std::vector<float> m(n * n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) m[i * n + i] = diagonal[i];
  return m;
}

void connectScaled(ImportContext& c, const std::vector<Unit>& units, int to, float scale) {
  if (scale == 1.0f) return c.builder.connectSelection(units, to);
  c.builder.connectUnits(units, to, scaledIdentity(std::vector<float>(units.size(), scale)));
}

Value openOutput(const ImportContext& c, int layer) {
  return sequenceValue(flatSequence(c.builder.unitsOf(layer)), c.where(), layer);
}

void matMul(ImportContext& c) {
  const Sequence& a = c.flatSequence(0, "input A");
  const Tensor& b = c.constant(1, "input B (the weight)");
  const std::int64_t k = a.dims[0];
  if (b.dtype() != DType::F32 || b.shape().size() != 2 || b.shape()[0] != k)
    c.fail("weight '" + c.node->input(1) + "' is " + b.describe() + ", which does not take " +
           std::to_string(k) + " features (a 2-D float weight is needed)");
  const std::int64_t m = b.shape()[1];
  const int layer = c.builder.addLayer(c.hint(), LayerKind::Additive, static_cast<int>(m));
  std::vector<float> matrix(static_cast<std::size_t>(m * k));
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t j = 0; j < k; ++j) matrix[r * k + j] = b.f32()[j * m + r];
  c.builder.connectUnits(a.units, layer, matrix);
  c.output(0, openOutput(c, layer));
}

/// Gemm's A is 2-D: a sequence never is (it has frames and streams), so only the glue of shapes
/// may use it.
void gemm(ImportContext& c) {
  if (isSequence(c, 0) || isSequence(c, 1))
    c.fail(
        "Gemm multiplies 2-D matrices, and a sequence is [T, N, features]; a Linear over "
        "all frames exports as MatMul and Add, which the importer maps");
  c.output(0, runTimeValue(c.where()));
}

/// Add (sign 1) and Sub (sign -1).
void addNode(ImportContext& c, float sign) {
  if (!isSequence(c, 0) && !isSequence(c, 1)) return c.output(0, runTimeValue(c.where()));
  const int s = isSequence(c, 0) ? 0 : 1;
  const float scale = s == 1 ? sign : 1.0f;  // of the sequence input
  const Sequence& x = c.flatSequence(s, "input " + std::to_string(s));
  int target = scale == 1.0f ? openLayerOf(c, s) : -1;
  if (target < 0) {
    target = c.builder.addLayer(c.hint(), LayerKind::Additive, static_cast<int>(x.dims[0]));
    connectScaled(c, x.units, target, scale);
  }
  if (isSequence(c, 1 - s)) {
    const Sequence& y = c.flatSequence(1 - s, "input " + std::to_string(1 - s));
    if (y.dims != x.dims) c.fail("it adds " + x.describe() + " and " + y.describe());
    connectScaled(c, y.units, target, sign);
  } else {
    std::vector<float> bias = featureVector(c, 1 - s, static_cast<std::size_t>(x.dims[0]));
    if (s == 0)
      for (float& b : bias) b *= sign;
    c.builder.addBias(target, bias);
  }
  c.output(0, openOutput(c, target));
}

/// A whole layer holding `units`: the layer itself, or a new layer selecting them.
int wholeLayer(ImportContext& c, const std::vector<Unit>& units) {
  if (units == c.builder.unitsOf(units.front().layer)) return units.front().layer;
  const int layer =
      c.builder.addLayer(c.hint("_select"), LayerKind::Additive, static_cast<int>(units.size()));
  c.builder.connectSelection(units, layer);
  return layer;
}

void mulNode(ImportContext& c) {
  if (!isSequence(c, 0) && !isSequence(c, 1)) return c.output(0, runTimeValue(c.where()));
  const int s = isSequence(c, 0) ? 0 : 1;
  const Sequence& x = c.flatSequence(s, "input " + std::to_string(s));
  if (isSequence(c, 1 - s)) {
    const Sequence& y = c.flatSequence(1 - s, "input " + std::to_string(1 - s));
    if (y.dims != x.dims) c.fail("it multiplies " + x.describe() + " and " + y.describe());
    const int a = wholeLayer(c, x.units), b = wholeLayer(c, y.units);
    const int layer =
        c.builder.addLayer(c.hint(), LayerKind::Multiplicative, static_cast<int>(x.dims[0]));
    c.builder.addIdentity(a, layer, 0);
    c.builder.addIdentity(b, layer, 0);
    return c.output(0, sequenceValue(flatSequence(c.builder.unitsOf(layer)), c.where()));
  }
  const auto scale = featureVector(c, 1 - s, static_cast<std::size_t>(x.dims[0]));
  const int layer = c.builder.addLayer(c.hint(), LayerKind::Additive, static_cast<int>(x.dims[0]));
  c.builder.connectUnits(x.units, layer, scaledIdentity(scale));
  c.output(0, openOutput(c, layer));
}

void activationNode(ImportContext& c, Activation activation) {
  if (!isSequence(c, 0)) c.fail("it computes on a value that is not a sequence");
  const Sequence& x = c.flatSequence(0, "its input");
  if (activation == Activation::Softmax &&
      normalizeAxis(attributeInt(*c.node, "axis", c.opset >= 13 ? -1 : 1), 3) != 2)
    c.fail("it normalises over an axis other than the features");
  int target = openLayerOf(c, 0);
  if (target < 0) {
    target = c.builder.addLayer(c.hint(), LayerKind::Additive, static_cast<int>(x.dims[0]));
    c.builder.connectSelection(x.units, target);
  }
  c.builder.layer(target).activation = activation;
  c.output(0, sequenceValue(flatSequence(c.builder.unitsOf(target)), c.where()));
}

}  // namespace

bool importMath(ImportContext& c) {
  static const std::map<std::string, std::function<void(ImportContext&)>> readers = {
      {"MatMul", matMul},
      {"Gemm", gemm},
      {"Add", [](ImportContext& c) { addNode(c, 1.0f); }},
      {"Sub", [](ImportContext& c) { addNode(c, -1.0f); }},
      {"Mul", mulNode},
      {"Tanh", [](ImportContext& c) { activationNode(c, Activation::Tanh); }},
      {"Sigmoid", [](ImportContext& c) { activationNode(c, Activation::Sigmoid); }},
      {"Relu", [](ImportContext& c) { activationNode(c, Activation::Relu); }},
      {"Softmax", [](ImportContext& c) { activationNode(c, Activation::Softmax); }},
  };
  const auto found = readers.find(c.node->op_type());
  if (found == readers.end()) return false;
  found->second(c);
  return true;
}

}  // namespace rnnwb::onnx_import
