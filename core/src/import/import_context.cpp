// The state of one import (import_context.hpp).
#include "import_context.hpp"

#include <algorithm>

namespace rnnwb::onnx_import {

std::string ImportContext::where() const {
  return "node '" + node->name() + "' (" + node->op_type() + ")";
}

void ImportContext::fail(const std::string& why) const {
  throw ImportError(origin + ": " + where() + ": " + why);
}

bool ImportContext::has(int i) const { return i < node->input_size() && !node->input(i).empty(); }

const Value& ImportContext::input(int i) const {
  if (!has(i)) fail("input " + std::to_string(i) + " is missing");
  const auto found = values.find(node->input(i));
  if (found == values.end())
    fail("input '" + node->input(i) +
         "' is not made by an earlier node, an initializer or a "
         "graph input");
  return found->second;
}

const Tensor& ImportContext::constant(int i, const std::string& what) const {
  const Value& v = input(i);
  if (v.kind == Value::Kind::Zeros)
    fail(what + " ('" + node->input(i) +
         "') is zeros of a shape known only at run time; the "
         "importer needs its values here");
  if (v.kind != Value::Kind::Constant)
    fail(what + " ('" + node->input(i) + "') is computed at run time (from " +
         (v.from.empty() ? std::string("the inputs") : v.from) +
         "); the importer needs a "
         "constant here");
  return v.constant;
}

const Sequence& ImportContext::flatSequence(int i, const std::string& what) const {
  const Value& v = input(i);
  if (v.kind != Value::Kind::Sequence)
    fail(what + " ('" + node->input(i) + "') is not a sequence computed from the inputs");
  if (!v.sequence.isFlat())
    fail(what + " ('" + node->input(i) + "') is " + v.sequence.describe() +
         ", where [T, N, features] is needed (inputs are read as [T, N, size])");
  return v.sequence;
}

bool ImportContext::usedOnce(int i) const {
  const auto found = uses.find(node->input(i));
  return found != uses.end() && found->second == 1 &&
         std::count(node->input().begin(), node->input().end(), node->input(i)) == 1;
}

void ImportContext::output(int i, Value value) {
  if (i < node->output_size() && !node->output(i).empty())
    values[node->output(i)] = std::move(value);
}

std::string ImportContext::hint(const std::string& suffix) const {
  return (node->name().empty() ? node->op_type() : node->name()) + suffix;
}

Value sequenceValue(Sequence sequence, const std::string& from, int openLayer) {
  Value v;
  v.kind = Value::Kind::Sequence;
  v.sequence = std::move(sequence);
  v.from = from;
  v.openLayer = openLayer;
  return v;
}

Value runTimeValue(const std::string& from) {
  Value v;
  v.kind = Value::Kind::RunTime;
  v.from = from;
  return v;
}

Value constantValue(Tensor tensor, const std::string& from) {
  Value v;
  v.kind = Value::Kind::Constant;
  v.constant = std::move(tensor);
  v.from = from;
  return v;
}

bool allZero(const Tensor& t) {
  if (t.dtype() == DType::F32)
    return std::all_of(t.f32().begin(), t.f32().end(), [](float x) { return x == 0.0f; });
  return std::all_of(t.i64().begin(), t.i64().end(), [](std::int64_t x) { return x == 0; });
}

}  // namespace rnnwb::onnx_import
