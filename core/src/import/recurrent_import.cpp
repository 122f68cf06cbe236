// ONNX's LSTM, GRU and RNN operators as graph layers (import_context.hpp). Each direction is a
// cell of the project's layers; a forward direction reads its state 1 frame back (delay 1), a
// reverse one 1 frame ahead (delay -1, graph format v2). Y [T, D, N, H] is the directions' h
// layers; Y_h and Y_c (the last states) are not sequences, and a model that uses them is refused.
//
// The gate orders of ONNX: LSTM W, R [D, 4H, .] in i, o, f, c; B [D, 8H] (Wb then Rb); P [D, 3H]
// in i, o, f. GRU W, R [D, 3H, .] in z, r, h; B [D, 6H]. RNN W, R [D, H, .]; B [D, 2H].
#include <array>
#include <map>

#include "import_context.hpp"
#include "onnx_protos.hpp"

namespace rnnwb::onnx_import {

namespace {

struct Cell {
  const Sequence* x = nullptr;
  int hidden = 0, directions = 1, gates = 1;
  Tensor w, r, b;  // b: [D, 2 gates H], zeros where the model has none
};

/// Rows [first, first + count) of direction d of W or R [D, rows, columns].
std::vector<float> rows(const Tensor& t, int d, int first, int count) {
  const std::int64_t columns = t.shape()[2], stride = t.shape()[1] * columns;
  const auto begin = t.f32().begin() + d * stride + first * columns;
  return {begin, begin + count * columns};
}

/// The input and the recurrent bias of gate g of direction d, summed.
std::vector<float> gateBias(const Cell& cell, int d, int g) {
  const int h = cell.hidden, n = cell.gates * h;
  std::vector<float> bias(h);
  for (int i = 0; i < h; ++i)
    bias[i] = cell.b.f32()[d * 2 * n + g * h + i] + cell.b.f32()[d * 2 * n + n + g * h + i];
  return bias;
}

void requireShape(const ImportContext& c, const Tensor& t, const std::string& what,
                  const Shape& shape) {
  if (t.dtype() != DType::F32 || t.shape() != shape)
    c.fail(what + " is " + t.describe() + ", expected F32 " + shapeToString(shape));
}

void requireZeros(const ImportContext& c, int i, const std::string& what) {
  if (!c.has(i)) return;
  const Value& v = c.input(i);
  if (v.kind == Value::Kind::Zeros || (v.kind == Value::Kind::Constant && allZero(v.constant)))
    return;
  c.fail(what + " ('" + c.node->input(i) +
         "') is not zeros: a graph starts every sequence from "
         "zeros");
}

/// Checks what all three operators share and reads X, W, R and B.
Cell readCell(const ImportContext& c, int gates, const std::vector<std::string>& activations) {
  for (const char* refused : {"clip", "activation_alpha", "activation_beta"})
    if (findAttribute(*c.node, refused))
      c.fail(std::string("attribute ") + refused + " is not mapped");
  if (attributeInt(*c.node, "layout", 0) != 0)
    c.fail("layout 1 (batch first) is not mapped; export with layout 0 ([T, N, size])");
  if (c.has(4)) c.fail("sequence_lens is not mapped: a graph computes every frame of a stream");
  Cell cell;
  cell.gates = gates;
  const std::string direction = attributeString(*c.node, "direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    c.fail("direction '" + direction + "' is not forward, reverse or bidirectional");
  cell.directions = direction == "bidirectional" ? 2 : 1;
  cell.x = &c.flatSequence(0, "X");
  cell.w = c.constant(1, "W");
  cell.r = c.constant(2, "R");
  const std::int64_t hidden = attributeInt(*c.node, "hidden_size", 0);
  const std::int64_t d = cell.directions, features = cell.x->dims[0];
  if (hidden <= 0) c.fail("hidden_size is missing");
  cell.hidden = static_cast<int>(hidden);
  requireShape(c, cell.w, "W", {d, gates * hidden, features});
  requireShape(c, cell.r, "R", {d, gates * hidden, hidden});
  cell.b = c.has(3) ? c.constant(3, "B") : Tensor::zerosF32({d, 2 * gates * hidden});
  requireShape(c, cell.b, "B", {d, 2 * gates * hidden});
  std::vector<std::string> expected;
  for (int i = 0; i < d; ++i)
    expected.insert(expected.end(), activations.begin(), activations.end());
  const std::vector<std::string> given = attributeStrings(*c.node, "activations");
  if (!given.empty() && given != expected) {
    std::string list;
    for (const std::string& a : given) list += (list.empty() ? "" : ", ") + a;
    c.fail("activations " + list + " are not the default ones, which the importer maps");
  }
  return cell;
}

/// The directions: {delay, layer id suffix}.
std::vector<std::pair<int, std::string>> directions(const ImportContext& c) {
  const std::string direction = attributeString(*c.node, "direction", "forward");
  if (direction == "bidirectional") return {{1, "_fw_"}, {-1, "_bw_"}};
  return {{direction == "reverse" ? -1 : 1, "_"}};
}

/// Y [T, D, N, H] of the directions' h layers, and the last states that are not sequences.
void outputs(ImportContext& c, const std::vector<int>& h, int hidden) {
  Sequence y;
  y.axes = {Axis::Frames, Axis::Known, Axis::Streams, Axis::Known};
  y.dims = {static_cast<std::int64_t>(h.size()), hidden};
  for (int layer : h)
    for (const Unit& u : c.builder.unitsOf(layer)) y.units.push_back(u);
  c.output(0, sequenceValue(y, c.where()));
  for (int i = 1; i < c.node->output_size(); ++i)
    c.output(i, Value{Value::Kind::LastState, {}, {}, -1, c.where()});
}

int gate(ImportContext& c, const std::string& prefix, const char* name, LayerKind kind, int size,
         Activation activation = Activation::Identity) {
  return c.builder.addLayer(c.hint(prefix + name), kind, size, activation);
}

void lstm(ImportContext& c) {
  const Cell cell = readCell(c, 4, {"Sigmoid", "Tanh", "Tanh"});
  requireZeros(c, 5, "initial_h");
  requireZeros(c, 6, "initial_c");
  if (attributeInt(*c.node, "input_forget", 0) != 0) c.fail("input_forget is not mapped");
  const int h = cell.hidden;
  Tensor p;
  if (c.has(7)) {
    p = c.constant(7, "P");
    requireShape(c, p, "P", {cell.directions, 3 * h});
  }
  GraphBuilder& b = c.builder;
  std::vector<int> hs;
  int d = 0;
  for (const auto& [delay, prefix] : directions(c)) {
    constexpr std::array<const char*, 4> names = {"i", "o", "f", "g"};  // ONNX's i, o, f, c
    std::array<int, 4> g{};
    for (int k = 0; k < 4; ++k)
      g[k] = gate(c, prefix, names[k], LayerKind::Additive, h,
                  k == 3 ? Activation::Tanh : Activation::Sigmoid);
    const int ig = gate(c, prefix, "ig", LayerKind::Multiplicative, h);
    const int fc = gate(c, prefix, "fc", LayerKind::Multiplicative, h);
    const int cs = gate(c, prefix, "c", LayerKind::Additive, h);
    const int ct = gate(c, prefix, "ct", LayerKind::Additive, h, Activation::Tanh);
    const int hl = gate(c, prefix, "h", LayerKind::Multiplicative, h);
    for (int k = 0; k < 4; ++k) {
      b.connectUnits(cell.x->units, g[k], rows(cell.w, d, k * h, h));
      b.addFull(hl, g[k], delay, rows(cell.r, d, k * h, h));
      b.addBias(g[k], gateBias(cell, d, k));
    }
    if (c.has(7) && !allZero(p)) {
      auto peephole = [&](int k) {
        const auto begin = p.f32().begin() + d * 3 * h + k * h;
        return std::vector<float>(begin, begin + h);
      };
      b.addDiagonal(cs, g[0], delay, peephole(0));
      b.addDiagonal(cs, g[1], 0, peephole(1));  // o sees this frame's c
      b.addDiagonal(cs, g[2], delay, peephole(2));
    }
    b.addIdentity(g[0], ig, 0);
    b.addIdentity(g[3], ig, 0);
    b.addIdentity(g[2], fc, 0);
    b.addIdentity(cs, fc, delay);
    b.addIdentity(ig, cs, 0);
    b.addIdentity(fc, cs, 0);
    b.addIdentity(cs, ct, 0);
    b.addIdentity(g[1], hl, 0);
    b.addIdentity(ct, hl, 0);
    hs.push_back(hl);
    ++d;
  }
  outputs(c, hs, h);
}

void gru(ImportContext& c) {
  const Cell cell = readCell(c, 3, {"Sigmoid", "Tanh"});
  requireZeros(c, 5, "initial_h");
  const bool linearBeforeReset = attributeInt(*c.node, "linear_before_reset", 0) != 0;
  const int h = cell.hidden;
  GraphBuilder& b = c.builder;
  std::vector<int> hs;
  int d = 0;
  for (const auto& [delay, prefix] : directions(c)) {
    const int z = gate(c, prefix, "z", LayerKind::Additive, h, Activation::Sigmoid);
    const int r = gate(c, prefix, "r", LayerKind::Additive, h, Activation::Sigmoid);
    const int n = gate(c, prefix, "n", LayerKind::Additive, h, Activation::Tanh);
    const int hl = gate(c, prefix, "h", LayerKind::Additive, h);
    for (int k = 0; k < 3; ++k)
      b.connectUnits(cell.x->units, k == 0 ? z : k == 1 ? r : n, rows(cell.w, d, k * h, h));
    b.addFull(hl, z, delay, rows(cell.r, d, 0, h));
    b.addFull(hl, r, delay, rows(cell.r, d, h, h));
    b.addBias(z, gateBias(cell, d, 0));
    b.addBias(r, gateBias(cell, d, 1));
    const auto inputBias = std::vector<float>(cell.b.f32().begin() + d * 6 * h + 2 * h,
                                              cell.b.f32().begin() + d * 6 * h + 3 * h);
    const auto stateBias = std::vector<float>(cell.b.f32().begin() + d * 6 * h + 5 * h,
                                              cell.b.f32().begin() + d * 6 * h + 6 * h);
    const int rh = gate(c, prefix, "rh", LayerKind::Multiplicative, h);
    b.addIdentity(r, rh, 0);
    if (linearBeforeReset) {  // n = tanh(Wh x + Wbh + r * (Rh h + Rbh))
      const int hn = gate(c, prefix, "hn", LayerKind::Additive, h);
      b.addFull(hl, hn, delay, rows(cell.r, d, 2 * h, h));
      b.addBias(hn, stateBias);
      b.addIdentity(hn, rh, 0);
      b.addIdentity(rh, n, 0);
      b.addBias(n, inputBias);
    } else {  // n = tanh(Wh x + Rh (r * h) + Wbh + Rbh)
      b.addIdentity(hl, rh, delay);
      b.addFull(rh, n, 0, rows(cell.r, d, 2 * h, h));
      b.addBias(n, gateBias(cell, d, 2));
    }
    // h = (1 - z) * n + z * h(t - delay)
    const int zn = gate(c, prefix, "zn", LayerKind::Multiplicative, h);
    const int zh = gate(c, prefix, "zh", LayerKind::Multiplicative, h);
    b.addComplement(z, zn, 0);
    b.addIdentity(n, zn, 0);
    b.addIdentity(z, zh, 0);
    b.addIdentity(hl, zh, delay);
    b.addIdentity(zn, hl, 0);
    b.addIdentity(zh, hl, 0);
    hs.push_back(hl);
    ++d;
  }
  outputs(c, hs, h);
}

void rnn(ImportContext& c) {
  const std::vector<std::string> given = attributeStrings(*c.node, "activations");
  const std::string name = given.empty() ? "Tanh" : given.front();
  const std::map<std::string, Activation> known = {
      {"Tanh", Activation::Tanh}, {"Sigmoid", Activation::Sigmoid}, {"Relu", Activation::Relu}};
  if (!known.count(name)) c.fail("activation " + name + " is not one a layer has");
  const Cell cell = readCell(c, 1, {name});
  requireZeros(c, 5, "initial_h");
  std::vector<int> hs;
  int d = 0;
  for (const auto& [delay, prefix] : directions(c)) {
    const int hl = gate(c, prefix, "h", LayerKind::Additive, cell.hidden, known.at(name));
    c.builder.connectUnits(cell.x->units, hl, rows(cell.w, d, 0, cell.hidden));
    c.builder.addFull(hl, hl, delay, rows(cell.r, d, 0, cell.hidden));
    c.builder.addBias(hl, gateBias(cell, d, 0));
    hs.push_back(hl);
    ++d;
  }
  outputs(c, hs, cell.hidden);
}

}  // namespace

bool importRecurrent(ImportContext& c) {
  const std::string& op = c.node->op_type();
  if (op == "LSTM")
    lstm(c);
  else if (op == "GRU")
    gru(c);
  else if (op == "RNN")
    rnn(c);
  else
    return false;
  return true;
}

}  // namespace rnnwb::onnx_import
