// The CPU kernel set of the op program's element-wise kinds (op_program.hpp): one loop per kind,
// run on one row (the fused step's blocks, a node step) or on many rows in one loop (runOpRows:
// the passes over all rows, the unfused step), so every binder of the CPU computes the same
// floats. Rows of different operands never overlap in part: they are distinct rows or buffers,
// hence the __restrict.
#include "fused_step.hpp"

#include "cpu_engine.hpp"  // RNNWB_VECTOR_CLONES
#include "rnnwb/core/engine/activation_math.hpp"

namespace rnnwb::cpu {
namespace {

// Inlined into runFusedBlock's clones, so that they are built for the clone's instruction set
// (not inlined, GCC builds them once for plain x86-64: other code, other rounding with no FMA).
#if defined(__GNUC__)
#define RNNWB_INTO_CLONES inline __attribute__((always_inline))
#else
#define RNNWB_INTO_CLONES inline
#endif

using Out = float* __restrict;
using In = const float* __restrict;

RNNWB_INTO_CLONES void activate(Activation activation, In s, Out y, int n) {
  switch (activation) {  // one loop per activation, so that each vectorizes
    case Activation::Softmax:
      math::softmax(s, y, n);
      break;
    case Activation::Sigmoid:
      for (int i = 0; i < n; ++i) y[i] = math::sigmoid(s[i]);
      break;
    case Activation::Tanh:
      for (int i = 0; i < n; ++i) y[i] = math::tanhApprox(s[i]);
      break;
    case Activation::Relu:
      for (int i = 0; i < n; ++i) y[i] = s[i] > 0.0f ? s[i] : 0.0f;
      break;
    case Activation::Identity:
      for (int i = 0; i < n; ++i) y[i] = s[i];
      break;
  }
}

/// y = f(s + x) (s + w x with w), the sum rounded as the unfused pass stored it in s.
RNNWB_INTO_CLONES void addActivate(Activation activation, In s, In x, In w, Out y, int n) {
  const auto apply = [&](auto f) {
    if (w)
      for (int i = 0; i < n; ++i) y[i] = f(s[i] + w[i] * x[i]);
    else
      for (int i = 0; i < n; ++i) y[i] = f(s[i] + x[i]);
  };
  switch (activation) {  // one loop per activation, so that each vectorizes
    case Activation::Sigmoid:
      apply([](float v) { return math::sigmoid(v); });
      break;
    case Activation::Tanh:
      apply([](float v) { return math::tanhApprox(v); });
      break;
    case Activation::Relu:
      apply([](float v) { return v > 0.0f ? v : 0.0f; });
      break;
    default:  // compileFinishLayer merges only the element-wise activations
      break;
  }
}

RNNWB_INTO_CLONES void activateBackward(Activation activation, In y, In dy, Out ds, int n) {
  switch (activation) {
    case Activation::Softmax:
      math::softmaxBackward(y, dy, ds, n);
      break;
    case Activation::Sigmoid:
      for (int i = 0; i < n; ++i) ds[i] = dy[i] * y[i] * (1.0f - y[i]);
      break;
    case Activation::Tanh:
      for (int i = 0; i < n; ++i) ds[i] = dy[i] * (1.0f - y[i] * y[i]);
      break;
    case Activation::Relu:
      for (int i = 0; i < n; ++i) ds[i] = y[i] > 0.0f ? dy[i] : 0.0f;
      break;
    case Activation::Identity:
      for (int i = 0; i < n; ++i) ds[i] = dy[i];
      break;
  }
}

// Not inlined, and not contracted into a fused multiply-add: the unfused passes round the product
// (a z buffer) before adding it, and the fused step gives the same floats.
#if defined(__GNUC__) && !defined(__clang__)
#define RNNWB_NO_CONTRACT __attribute__((noinline, optimize("fp-contract=off")))
#else
#define RNNWB_NO_CONTRACT __attribute__((noinline))
#endif

RNNWB_VECTOR_CLONES RNNWB_NO_CONTRACT void mulAddRow(Out dst, In a, In b, int n) {
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
  for (int i = 0; i < n; ++i) dst[i] += a[i] * b[i];
}

RNNWB_VECTOR_CLONES RNNWB_NO_CONTRACT void mulAssignRow(Out dst, In a, In b, int n) {
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
  for (int i = 0; i < n; ++i) dst[i] = 0.0f + a[i] * b[i];
}

/// The op on n floats from dst, a and b (each null where the op reads none); `row` is the row's
/// index in the chunk (cross-entropy's class).
RNNWB_INTO_CLONES void runKernel(const FusedOp& op, Out dst, In a, In b, int n,
                                 std::ptrdiff_t row) {
  switch (op.kind) {
    case FusedKind::Fill:
      for (int i = 0; i < n; ++i) dst[i] = a[i];
      break;
    case FusedKind::Add:
      for (int i = 0; i < n; ++i) dst[i] += a[i];
      break;
    case FusedKind::AddScaled: {
      In w = op.weights;
      for (int i = 0; i < n; ++i) dst[i] += w[i] * a[i];
      break;
    }
    case FusedKind::Assign:  // 0 + a, not a copy: the floats of Add into zeros, -0 included
      for (int i = 0; i < n; ++i) dst[i] = 0.0f + a[i];
      break;
    case FusedKind::AssignScaled: {
      In w = op.weights;
      for (int i = 0; i < n; ++i) dst[i] = 0.0f + w[i] * a[i];
      break;
    }
    case FusedKind::Subtract:
      for (int i = 0; i < n; ++i) dst[i] -= a[i];
      break;
    case FusedKind::AddComplement:
      for (int i = 0; i < n; ++i) dst[i] += 1.0f - a[i];
      break;
    case FusedKind::AssignComplement:
      for (int i = 0; i < n; ++i) dst[i] = 0.0f + (1.0f - a[i]);
      break;
    case FusedKind::AssignNegated:
      for (int i = 0; i < n; ++i) dst[i] = 0.0f - a[i];
      break;
    case FusedKind::Copy:
      for (int i = 0; i < n; ++i) dst[i] = a[i];
      break;
    case FusedKind::Mul:
      for (int i = 0; i < n; ++i) dst[i] = a[i] * b[i];
      break;
    case FusedKind::MulAdd:
      mulAddRow(dst, a, b, n);
      break;
    case FusedKind::MulAssign:
      mulAssignRow(dst, a, b, n);
      break;
    case FusedKind::MulInto:
      for (int i = 0; i < n; ++i) dst[i] *= a[i];
      break;
    case FusedKind::Activate:
      activate(op.activation, a, dst, n);
      break;
    case FusedKind::AddActivate:
      addActivate(op.activation, a, b, op.weights, dst, n);
      break;
    case FusedKind::ActivateBackward:
      activateBackward(op.activation, a, b, dst, n);
      break;
    case FusedKind::CrossEntropyOnSums:
      if (row < op.firstPredictedRow) break;
      for (int i = 0; i < n; ++i) dst[i] += a[i];
      dst[op.classes[row]] -= 1.0f;
      break;
    case FusedKind::Product:    // not element-wise: the binder runs these
    case FusedKind::CtcOnSums:  // a whole example's: the grid engine adds it (grid_losses.hpp)
    case FusedKind::WeightGradient:
    case FusedKind::DiagonalWeightGradient:
    case FusedKind::BiasGradient:
      break;
  }
}

/// The operand's row, or null when the op does not read it.
inline const float* rowOf(const RowOperand& operand, int t, int stream) {
  return operand.base ? operand.at(t, stream) : nullptr;
}

RNNWB_INTO_CLONES void runOp(const FusedOp& op, int t, int stream) {
  runKernel(op, op.dst.at(t, stream), rowOf(op.a, t, stream), rowOf(op.b, t, stream), op.units,
            static_cast<std::ptrdiff_t>(t) * op.streams + stream);
}

/// Whether the op may run as one loop over many rows: its rows lie one after the other in every
/// operand, and no row of it depends on where it is (per-unit weights, a softmax, a class).
bool runsFlat(const FusedOp& op) {
  const auto packed = [&](const RowOperand& r) { return !r.base || r.streamStride == op.units; };
  const bool rowWise = op.weights || op.kind == FusedKind::CrossEntropyOnSums ||
                       op.activation == Activation::Softmax;
  return !rowWise && packed(op.dst) && packed(op.a) && packed(op.b);
}

}  // namespace

RNNWB_VECTOR_CLONES void runFusedBlock(const FusedStep& block, int t, int first, int count) {
  for (int stream = first; stream < first + count; ++stream)
    for (const FusedOp& op : block.block) runOp(op, t, stream);
}

RNNWB_VECTOR_CLONES void runOpRows(const FusedOp& op, int t, int first, int count) {
  if (count <= 0) return;
  if (!runsFlat(op)) {
    for (int stream = first; stream < first + count; ++stream) runOp(op, t, stream);
    return;
  }
  runKernel(op, op.dst.at(t, first), rowOf(op.a, t, first), rowOf(op.b, t, first), count * op.units,
            0);
}

void appendOp(std::vector<FusedStep>& program, const FusedOp& op) {
  if (program.empty() || program.back().isProduct) program.emplace_back();
  program.back().block.push_back(op);
}

}  // namespace rnnwb::cpu
