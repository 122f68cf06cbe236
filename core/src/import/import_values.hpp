#pragma once
// What the importer knows about each value of an ONNX graph (onnx_import.hpp): a constant, a
// number computed from the inputs' shapes at run time, zeros (an initial state), a sequence of
// layer units, or a recurrent operator's last state. A sequence is read symbolically: its axes
// are the frames T, the streams N and known axes, and its known axes hold units of graph layers
// (row-major over the known axes), so that Transpose, Reshape, Squeeze, Concat, Slice and
// Gather move units around without computing anything.
#include <cstdint>
#include <string>
#include <vector>

#include "rnnwb/core/tensor.hpp"

namespace rnnwb::onnx_import {

/// Unit `index` of layer `layer` (an index into the builder's layers).
struct Unit {
  int layer = 0;
  int index = 0;
  bool operator==(const Unit&) const = default;
};

enum class Axis { Frames, Streams, Known };

struct Sequence {
  std::vector<Axis> axes;
  std::vector<std::int64_t> dims;  // the sizes of the Known axes, in axis order
  std::vector<Unit> units;         // row-major over dims

  /// [T, N, features]: what a layer's units are.
  bool isFlat() const;
  /// "[T, N, 8]", for messages.
  std::string describe() const;
};

/// [T, N, units.size()].
Sequence flatSequence(std::vector<Unit> units);

struct Value {
  enum class Kind { Constant, RunTime, Zeros, Sequence, LastState };
  Kind kind = Kind::RunTime;
  Tensor constant;    // Constant: F32 or I64
  Sequence sequence;  // Sequence
  /// Sequence: the layer whose pre-activation this value is, while its activation and bias are
  /// still open (a MatMul's fresh layer): a following Add or activation folds into it. -1 if none.
  int openLayer = -1;
  std::string from;  // who made it: "LSTM '/rnn/LSTM'", for messages
};

// The moves of units; each throws std::invalid_argument with WHY (the caller adds the node) for
// what touches the frames or the streams or does not fit.
Sequence transposeSequence(const Sequence& s, const std::vector<std::int64_t>& perm);
Sequence squeezeSequence(const Sequence& s, std::vector<std::int64_t> axes);  // empty: all 1s
Sequence unsqueezeSequence(const Sequence& s, std::vector<std::int64_t> axes);
Sequence reshapeSequence(const Sequence& s, const std::vector<std::int64_t>& shape);
Sequence concatSequences(const std::vector<Sequence>& parts, std::int64_t axis);
/// Units start, start + step, ... before end along `axis` (ONNX's clamping rules).
Sequence sliceSequence(const Sequence& s, std::int64_t axis, std::int64_t start, std::int64_t end,
                       std::int64_t step);
/// `indices` along `axis`; a scalar index (`scalar`) drops the axis.
Sequence gatherSequence(const Sequence& s, std::int64_t axis,
                        const std::vector<std::int64_t>& indices, bool scalar);

/// An axis in [-rank, rank) as one in [0, rank); throws otherwise.
std::int64_t normalizeAxis(std::int64_t axis, std::size_t rank);

}  // namespace rnnwb::onnx_import
