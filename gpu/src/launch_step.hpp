#pragma once
// One step of a chunk's launch schedule: a product or an element-wise operation on the device
// arena, every operand given as an element offset into it (no pointer), so that a schedule is
// plain data built and tested on the host (tst_launchschedule runs it with a CPU interpreter
// against CpuBackend) and run by the CUDA step runner. C++17 and free of core's C++20 headers:
// .cu files include it.
//
// The step kinds are the op program's kinds (rnnwb/core/engine/op_program.hpp), one each, with the
// same maths (the schedule builder maps them one to one), and five of the binder's own: zeroing,
// the losses and their mse gradient, the mask.
//
// Arenas: floats (activations, parameters, gradients, targets, workspaces), int32 (class
// targets), double (per-row losses). Row-major everywhere, one row per (frame, stream).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rnnwb/core/layer_types.hpp"

namespace rnnwb::gpu {

enum class StepKind {
  // --- one per op::Kind (the op kind in brackets where its name differs) ---
  // Products, on `m, n, k` with leading dimensions:
  Gemm,            // [Product] C = A' B' + beta C, row-major, A' = A or A^T (transA), B' likewise
  WeightGradient,  // C += A^T B (dW += dz^T x over all rows), run as a Gemm
  // Row operations on `rows` rows of `width` floats: dst, a (src) and b (aux), each with its
  // leading dimension (dstLd, srcLd, auxLd; 0: the same row for every row), w (weights) per unit.
  BroadcastRow,      // [Fill] dst = a (a bias row or the zero row)
  Add,               // dst += a
  AddScaled,         // dst += w * a
  Assign,            // dst = 0 + a
  AssignScaled,      // dst = 0 + w * a
  Subtract,          // dst -= a
  AddComplement,     // dst += 1 - a
  AssignComplement,  // dst = 0 + (1 - a)
  AssignNegated,     // dst = 0 - a
  Copy,              // dst = a
  Mul,               // dst = a * b
  MulInto,           // dst *= a
  MulAdd,            // dst += a * b, a * b rounded first
  MulAssign,         // dst = 0 + a * b, a * b rounded first
  Activate,          // dst = f(a) (softmax over the row)
  AddActivate,       // dst = f(a + w * b) (w = 1 without weights)
  ActivateBackward,  // dst = b * f'(y = a); softmax's Jacobian for softmax
  // Packed rows (leading dimension = width):
  CrossEntropyGrad,  // [CrossEntropyOnSums] dst[r] += a[r] - onehot(class[r]) for r >= firstRow
  ColumnSum,         // [BiasGradient] dst[i] += sum_r src[r, i]
  ColumnDot,         // [DiagonalWeightGradient] dst[i] += sum_r src[r, i] * aux[r, i]
  // --- the binder's own ---
  Zero,              // dst[0, count) = 0
  MseGrad,           // dy[i] = y[i] - target[i], i < count
  CrossEntropyLoss,  // loss[lossRow + r] = -log softmax(s[r])[class[r]]
  MseLoss,           // loss[lossRow + r] = 0.5 * |y[r] - target[r]|^2
  Mask,              // dst[i] *= mask[i] (src = mask), i < count
};

/// The kind's name, as in the enum ("Gemm", "Activate", ...): for profiles and test reports.
inline const char* toString(StepKind kind) {
  static const char* const kNames[] = {"Gemm",
                                       "WeightGradient",
                                       "BroadcastRow",
                                       "Add",
                                       "AddScaled",
                                       "Assign",
                                       "AssignScaled",
                                       "Subtract",
                                       "AddComplement",
                                       "AssignComplement",
                                       "AssignNegated",
                                       "Copy",
                                       "Mul",
                                       "MulInto",
                                       "MulAdd",
                                       "MulAssign",
                                       "Activate",
                                       "AddActivate",
                                       "ActivateBackward",
                                       "CrossEntropyGrad",
                                       "ColumnSum",
                                       "ColumnDot",
                                       "Zero",
                                       "MseGrad",
                                       "CrossEntropyLoss",
                                       "MseLoss",
                                       "Mask"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<int>(StepKind::Mask) + 1);
  return kNames[static_cast<int>(kind)];
}

/// A cuBLAS product (Gemm and WeightGradient: the same call, on the step's m, n, k and lds).
inline bool isProduct(StepKind kind) {
  return kind == StepKind::Gemm || kind == StepKind::WeightGradient;
}

/// A row operation with per-operand leading dimensions (BroadcastRow .. ActivateBackward).
inline bool isRowOperation(StepKind kind) {
  return kind >= StepKind::BroadcastRow && kind <= StepKind::ActivateBackward;
}

struct LaunchStep {
  StepKind kind = StepKind::Zero;
  Activation activation = Activation::Identity;
  bool transA = false, transB = false;
  float beta = 1.0f;
  int m = 0, n = 0, k = 0;  // Gemm sizes
  int lda = 0, ldb = 0, ldc = 0;
  std::int64_t dst = 0, src = 0, aux = 0;  // float arena offsets (Gemm: C, A, B); -1: none
  std::int64_t weights = -1;               // row operations: per-unit weights, -1: none
  std::int64_t classes = 0;                // int arena offset (class targets)
  std::int64_t lossRow = 0;                // double arena offset
  std::int64_t count = 0;                  // elements, for the flat operations
  int rows = 0, width = 0;                 // row operations
  int dstLd = 0, srcLd = 0, auxLd = 0;     // row operations' leading dimensions
  int firstRow = 0;                        // CrossEntropyGrad: rows before it get no loss term
};

/// A schedule: the steps of one chunk in order, with the arena sizes they address. The CUDA
/// runner captures a whole schedule into one CUDA graph, so a recurrent node's frame-by-frame
/// steps cost one graph launch per chunk, not a launch per step.
struct LaunchSchedule {
  std::vector<LaunchStep> steps;
  std::size_t floatArena = 0, intArena = 0, doubleArena = 0;  // sizes in elements
  std::size_t gemmCount = 0;
};

}  // namespace rnnwb::gpu
