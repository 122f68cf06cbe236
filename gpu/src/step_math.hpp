#pragma once
// The maths of one element of each row operation (launch_step.hpp), for the device kernels
// (step_kernels.cu) and the CPU interpreter of the tests (tests/gpu/host_step_runner.cpp) alike:
// both run the same expression per element, so a step compared between them (tst_gpu_steps)
// differs only by the device's rounding. Softmax (a whole row) is each runner's own loop. C++17.
#include "launch_step.hpp"
#include "rnnwb/core/engine/activation_math.hpp"

namespace rnnwb::gpu::step {

/// a * b rounded before any add (never contracted into a fused multiply-add): MulAdd and
/// MulAssign give the floats of a product stored in a z buffer and added after.
RNNWB_HOST_DEVICE inline float roundedProduct(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  volatile float product = a * b;
  return product;
#endif
}

/// The new value of a destination element `d` of a row operation from its operands' elements
/// (a, b; w = the unit's weight, 1 without weights). Softmax's Activate and ActivateBackward are
/// not element-wise: the runners take them row by row.
RNNWB_HOST_DEVICE inline float rowElement(StepKind kind, Activation activation, float d, float a,
                                          float b, float w) {
  switch (kind) {
    case StepKind::BroadcastRow:
    case StepKind::Copy:
      return a;
    case StepKind::Add:
      return d + a;
    case StepKind::AddScaled:
      return d + w * a;
    case StepKind::Assign:  // 0 + a, not a copy: the floats of an add into zeros, -0 included
      return 0.0f + a;
    case StepKind::AssignScaled:
      return 0.0f + w * a;
    case StepKind::Subtract:
      return d - a;
    case StepKind::AddComplement:
      return d + (1.0f - a);
    case StepKind::AssignComplement:
      return 0.0f + (1.0f - a);
    case StepKind::AssignNegated:
      return 0.0f - a;
    case StepKind::Mul:
      return a * b;
    case StepKind::MulInto:
      return d * a;
    case StepKind::MulAdd:
      return d + roundedProduct(a, b);
    case StepKind::MulAssign:
      return 0.0f + roundedProduct(a, b);
    case StepKind::Activate:
      return math::activate(activation, a);
    case StepKind::AddActivate:
      return math::activate(activation, a + w * b);
    case StepKind::ActivateBackward:
      return b * math::derivativeFromOutput(activation, a);
    default:
      return d;
  }
}

/// Whether the row operation reads its destination's element (an add into it).
RNNWB_HOST_DEVICE inline bool readsDestination(StepKind kind) {
  return kind == StepKind::Add || kind == StepKind::AddScaled || kind == StepKind::Subtract ||
         kind == StepKind::AddComplement || kind == StepKind::MulInto || kind == StepKind::MulAdd;
}

}  // namespace rnnwb::gpu::step
