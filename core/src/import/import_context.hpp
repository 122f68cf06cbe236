#pragma once
// The state of one import (onnx_import.hpp): the value of every ONNX name read so far, how often
// each is used, the graph being built, and the node being read, for messages. The operators are
// read by importGlue (glue_import.cpp), importMath (math_import.cpp) and importRecurrent
// (recurrent_import.cpp); each returns false for an operator that is not its own.
#include <map>
#include <stdexcept>
#include <string>

#include "graph_builder.hpp"
#include "import_values.hpp"
#include "onnx.pb.h"

namespace rnnwb::onnx_import {

/// An error that already names the file and the node.
struct ImportError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct ImportContext {
  std::string origin;
  int opset = 17;
  GraphBuilder builder;
  std::map<std::string, Value> values;
  std::map<std::string, int> uses;  // how many node inputs and graph outputs read each name
  const onnx::NodeProto* node = nullptr;

  /// "node 'NAME' (OP)".
  std::string where() const;
  /// Throws ImportError "ORIGIN: node 'NAME' (OP): WHY".
  [[noreturn]] void fail(const std::string& why) const;
  /// Input `i` is given (present and not the empty name).
  bool has(int i) const;
  const Value& input(int i) const;
  const Tensor& constant(int i, const std::string& what) const;
  /// Input `i` as a sequence of [T, N, features] (`what` names it in messages).
  const Sequence& flatSequence(int i, const std::string& what) const;
  /// Input `i` is read by this node alone.
  bool usedOnce(int i) const;
  void output(int i, Value value);
  /// A layer id hint: the node's name (or its operator) with `suffix`.
  std::string hint(const std::string& suffix = "") const;
};

bool importGlue(ImportContext& context);
bool importMath(ImportContext& context);
bool importRecurrent(ImportContext& context);

Value sequenceValue(Sequence sequence, const std::string& from, int openLayer = -1);
Value runTimeValue(const std::string& from);
Value constantValue(Tensor tensor, const std::string& from);
/// All values zero (F32 or I64).
bool allZero(const Tensor& t);

}  // namespace rnnwb::onnx_import
