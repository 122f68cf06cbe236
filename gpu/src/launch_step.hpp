#pragma once
// One step of a chunk's launch schedule: a product or an element-wise operation on the device
// arena, every operand given as an element offset into it (no pointer), so that a schedule is
// plain data built and tested on the host (tst_launchschedule runs it with a CPU interpreter
// against CpuBackend) and run by the CUDA step runner. C++17 and free of core's C++20 headers:
// .cu files include it.
//
// Arenas: floats (activations, parameters, gradients, targets, workspaces), int32 (class
// targets), double (per-row losses). Row-major everywhere, one row per (frame, stream).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rnnwb/core/layer_types.hpp"

namespace rnnwb::gpu {

enum class StepKind {
  Gemm,              // C = A' B' + beta C, row-major, A' = A or A^T (transA), B' likewise
  Zero,              // dst[0, count) = 0
  BroadcastRow,      // dst[r, i] = src[i] for r < rows, i < width (bias into s)
  Copy,              // dst[i] = src[i], i < count
  Add,               // dst[i] += src[i]
  Multiply,          // dst[i] *= src[i]
  AddProduct,        // dst[r, i] += w[i] * src[r, i] (diagonal connection; w = aux)
  AddColumns,        // dst[r, i] += src[r * srcLd + i], i < width (a stacked group's part)
  CopyColumns,       // dst[r * dstLd + i] = src[r, i], i < width (gather into a stack)
  Activate,          // y = f(s) row by row (softmax over width)
  ActivateBackward,  // ds = f'(s) dy, through y
  CrossEntropyGrad,  // ds[r] += y[r] - onehot(class[r]) for rows >= firstRow
  MseGrad,           // dy[i] = y[i] - target[i], i < count
  ColumnSum,         // out[i] += sum_r src[r, i] (bias gradient)
  ColumnDot,         // out[i] += sum_r src[r, i] * aux[r, i] (diagonal weight gradient)
  CrossEntropyLoss,  // loss[lossRow + r] = -log softmax(s[r])[class[r]]
  MseLoss,           // loss[lossRow + r] = 0.5 * |y[r] - target[r]|^2
  Mask,              // dst[i] *= mask[i] (src = mask), i < count
};

/// The kind's name, as in the enum ("Gemm", "Activate", ...): for profiles and test reports.
inline const char* toString(StepKind kind) {
  static const char* const kNames[] = {
      "Gemm",        "Zero",      "BroadcastRow",     "Copy",
      "Add",         "Multiply",  "AddProduct",       "AddColumns",
      "CopyColumns", "Activate",  "ActivateBackward", "CrossEntropyGrad",
      "MseGrad",     "ColumnSum", "ColumnDot",        "CrossEntropyLoss",
      "MseLoss",     "Mask"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<int>(StepKind::Mask) + 1);
  return kNames[static_cast<int>(kind)];
}

struct LaunchStep {
  StepKind kind = StepKind::Zero;
  Activation activation = Activation::Identity;
  bool transA = false, transB = false;
  float beta = 1.0f;
  int m = 0, n = 0, k = 0;  // Gemm sizes
  int lda = 0, ldb = 0, ldc = 0;
  std::int64_t dst = 0, src = 0, aux = 0;  // float arena offsets (Gemm: C, A, B)
  std::int64_t classes = 0;                // int arena offset (class targets)
  std::int64_t lossRow = 0;                // double arena offset
  std::int64_t count = 0;                  // elements, for the flat operations
  int rows = 0, width = 0;                 // row operations
  int srcLd = 0, dstLd = 0;                // AddColumns / CopyColumns
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
