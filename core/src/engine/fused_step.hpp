#pragma once
// A region of the op program (op_program.hpp) bound to a chunk's buffers: a list of steps, each
// either a product (one sgemm over a worker's rows) or a block of element-wise ops, each op the
// program's op with its references resolved to rows (RowOperand). The fused recurrent step runs a
// block stream by stream: every op of the block on one stream's row before the next stream, so
// that a row's sums, activations and factors stay in the first-level cache between the ops
// instead of one pass over all the streams per layer. A frame's rows are independent (a row reads
// only its own stream at this frame or at earlier frames), so the fused and the unfused orders
// compute the same floats. Private to the CPU engine (and NodeStep, which runs its kernels).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rnnwb/core/engine/op_program.hpp"
#include "rnnwb/core/layer_types.hpp"

namespace rnnwb::cpu {

/// A row of a [frames, streams, width] buffer: the row of (frame t, stream) starts at
/// base + t * frameStride + stream * streamStride (frameStride 0 for the per-stream workspace).
struct RowOperand {
  float* base = nullptr;
  std::ptrdiff_t frameStride = 0, streamStride = 0;
  float* at(int t, int stream) const { return base + t * frameStride + stream * streamStride; }
};

// The op kinds of the op program, one to one: a fused op is an op bound to this chunk's buffers.
using FusedKind = op::Kind;

struct FusedOp {
  FusedKind kind = FusedKind::Add;
  Activation activation = Activation::Identity;
  int units = 0;
  RowOperand dst, a, b;
  const float* weights = nullptr;         // AddScaled, AssignScaled, AddActivate
  const std::int64_t* classes = nullptr;  // CrossEntropyOnSums: [T, N]
  std::ptrdiff_t firstPredictedRow = 0;   // CrossEntropyOnSums: rows before it have no loss
  int streams = 0;                        // CrossEntropyOnSums: row = t * streams + stream
};

/// c[rows, n] = beta * c + a[rows, k] * op(w): rows are the worker's streams of one frame.
struct FusedProduct {
  bool transposeWeights = false;
  int n = 0, k = 0;
  RowOperand a, c;
  const float* weights = nullptr;
  int ldw = 0;
  float beta = 1.0f;
};

struct FusedStep {
  bool isProduct = false;
  FusedProduct product;
  std::vector<FusedOp> block;
};

/// Runs a block for streams [first, first + count) of frame t, stream by stream: every op of the
/// block on one stream's row before the next stream.
void runFusedBlock(const FusedStep& block, int t, int first, int count);

/// Runs one element-wise op on rows [first, first + count) of frame t, one loop over all of them
/// where the rows lie one after the other. With t = 0 and a buffer's own rows (frameStride =
/// streams * units), `first` and `count` may span frames: all rows of a chunk at once.
void runOpRows(const FusedOp& op, int t, int first, int count);

/// Appends an element-wise op to the program, opening a block after a product.
void appendOp(std::vector<FusedStep>& program, const FusedOp& op);

}  // namespace rnnwb::cpu
